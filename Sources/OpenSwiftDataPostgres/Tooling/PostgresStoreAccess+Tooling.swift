import Foundation
import OpenSwiftData

/// A PostgreSQL store as the tools read and write it: the PostgreSQL store's SQL behind
/// ``StoreTooling``.
extension PostgresStoreAccess: StoreTooling, StoreToolingProvider {
    /// Whether `location` names a PostgreSQL server (`postgres://` or `postgresql://`).
    package static func recognizes(_ location: String) -> Bool {
        let lowered = location.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    package static func openTooling(at location: String, name: String, access: StoreToolingAccess) throws -> any StoreTooling {
        guard let url = URL(string: location) else {
            throw SwiftDataError(.invalidStoreURL, reason: "\(location) is not a URL.")
        }
        return try PostgresStoreAccess(url: url, name: name, writable: access == .writing)
    }

    // MARK: Reading

    package func rowCount(of table: ModelTable, filter: QueryExpression?) throws -> Int64 {
        try count(of: table.entity.name, filter: filter)
    }

    /// Reads a thousand rows at a time, with the links of each thousand in one query per
    /// relationship.
    package func forEachRow(
        of table: ModelTable, filter: QueryExpression?, sort: [QuerySort], limit: Int?, offset: Int?, includeLinks: Bool,
        _ body: (ModelRow) throws -> Void
    ) throws {
        let columns = table.attributes.map(\.name) + table.foreignKeys.map(\.name)
        var page: [ModelRow] = []
        func flush() throws {
            if includeLinks {
                let keys = page.map(\.id)
                for link in table.links {
                    let (own, other) = link.ownsLink == false ? ("target", "owner") : ("owner", "target")
                    let pairs = try links(link.linkName?.table ?? "", from: own, to: other, among: keys)
                    for index in page.indices { page[index].links.append(pairs[page[index].id] ?? []) }
                }
            }
            for row in page { try body(row) }
            page.removeAll(keepingCapacity: true)
        }
        try forEachRow(of: table.entity.name, columns: columns, filter: filter, sort: sort, limit: limit, offset: offset) { key, values in
            page.append(try table.row(key: key, values: values))
            if page.count == Self.batchRows { try flush() }
        }
        try flush()
    }

    /// Opened for reading, the store reads in one read-only transaction from the start.
    package func reading<R>(_ body: () throws -> R) throws -> R {
        try body()
    }

    // MARK: Inspecting and verifying

    package func inspection() throws -> StoreInspection {
        var rows: [String: Int64] = [:]
        for entity in schema.entities { rows[entity.name] = try count(entity.name) }
        return StoreInspection(
            namespace: namespace, format: format, identifier: identifier, bytes: try size(),
            historyTransactions: try historyTransactionCount(), rows: rows)
    }

    /// The tables and their column types matching the recorded schema, every relationship
    /// pointing at a row that exists, and the key sequences and the history counter ahead of the
    /// keys and history numbers in use (behind them, the next saves would collide).
    package func verificationProblems() throws -> [String] {
        var columns: [String: Set<String>] = [:]
        var types: [String: [String: String]] = [:]
        for (table, column, type) in try self.columns() {
            columns[table, default: []].insert(column)
            types[table, default: [:]][column] = type
        }
        var problems = SchemaLayoutCheck.problems(schema, columns: columns)
        for entity in schema.entities {
            for attribute in entity.attributes {
                guard let type = types[entity.name]?[attribute.name] else { continue }
                let expected = Self.columnType(attribute.storage)
                if type != expected { problems.append("\(entity.name).\(attribute.name) is \(type), not \(expected)") }
            }
        }
        guard problems.isEmpty else { return problems }
        problems += try ReferenceCheckSQL.problems(schema, table: table, quote: PostgresSQL.quote, primaryKey: PostgresSQL.primaryKey) {
            try integers($0).first ?? 0
        }
        for root in Set(schema.entities.map { schema.root(of: $0.name) }).sorted() {
            let tables = ([root] + schema.descendants(of: root).map(\.name)).map(table)
            let keys = tables.map { "SELECT max(\(PostgresSQL.primaryKey)) AS k FROM \($0)" }.joined(separator: " UNION ALL ")
            let highest = try integers("SELECT coalesce(max(k), 0) FROM (\(keys)) AS keys").first ?? 0
            guard let next = try lastKey(root: root) else {
                problems.append("the key sequence of \(root) is missing")
                continue
            }
            if next < highest { problems.append("the key sequence of \(root) is at \(next), behind the key \(highest) in use: the next saves would collide") }
        }
        if let (counter, highest) = try historyCounter(), counter < highest {
            problems.append("the history counter is at \(counter), behind transaction \(highest): the next saves would collide")
        }
        return problems
    }

    // MARK: Writing

    package func problem(storing value: StoredValue) -> String? { Self.problem(storing: value) }

    package func canKeep(_ keysByRoot: [String: [Int64]]) throws -> Bool {
        for (root, keys) in keysByRoot.sorted(by: { $0.key < $1.key }) where try !reserveKeys(keys, root: root) {
            return false
        }
        return true
    }

    package func insert(_ rows: [(key: Int64?, values: [StoredValue])], into table: ModelTable, root: String?) throws -> [Int64] {
        var fresh = try drawKeys(rows.count(where: { $0.key == nil }), root: root ?? table.entity.name)[...]
        let keyed = rows.map { row in (key: row.key ?? fresh.popFirst() ?? 0, values: row.values) }
        do {
            try insert(keyed, into: table.entity.name, attributes: table.attributes)
        } catch let error as SwiftDataError where error == .uniquenessConflict {
            throw RowConflict(index: nil, reason: error.reason)
        }
        return keyed.map(\.key)
    }

    package func setForeignKeys(_ pairs: [(row: Int64, target: Int64)], of relationship: StoredSchema.Relationship, in table: ModelTable) throws {
        try setForeignKeys(pairs, of: table.entity.name, column: relationship.name)
    }

    package func addLinks(_ pairs: [(owner: Int64, target: Int64)], to link: LinkName) throws {
        try addLinks(pairs, to: link.table)
    }
}
