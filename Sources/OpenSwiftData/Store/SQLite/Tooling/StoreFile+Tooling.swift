import Foundation

/// A store file as the tools read and write it: the SQLite store's SQL behind ``StoreTooling``.
extension StoreFile: StoreTooling, StoreToolingProvider {
    package var displayName: String { path }

    /// Whether `location` is an SQLite database: its file starts with SQLite's header. A location
    /// no provider recognises is opened as a store file, which says what is wrong with it.
    ///
    /// - Throws: ``SwiftDataError/storeIsReadOnly`` when a file is there but cannot be read.
    package static func recognizes(_ location: String) throws -> Bool {
        try StoreFileInspection.header(ofFileAt: location) == StoreFileInspection.sqliteHeader
    }

    package static func openTooling(at location: String, name: String, access: StoreToolingAccess) throws -> any StoreTooling {
        try StoreFile(path: location, writable: access == .writing, following: access == .following)
    }

    // MARK: Reading

    package func rowCount(of table: ModelTable, filter: QueryExpression?) throws -> Int64 {
        let clause = Self.sql(filter: filter, sort: [], table: table.entity.name)
        let condition = clause.whereClause.isEmpty ? "" : " WHERE \(clause.whereClause)"
        return try integer("SELECT count(*) FROM \(Self.quote(table.entity.name))\(condition)", clause.arguments) ?? 0
    }

    package func forEachRow(
        of table: ModelTable, filter: QueryExpression?, sort: [QuerySort], limit: Int?, offset: Int?, includeLinks: Bool,
        _ body: (ModelRow) throws -> Void
    ) throws {
        let name = Self.quote(table.entity.name)
        let clause = Self.sql(filter: filter, sort: sort, table: table.entity.name)
        let columns = [Self.primaryKeyColumn] + (table.attributes.map(\.name) + table.foreignKeys.map(\.name)).map(Self.quote)
        var sql = "SELECT \(columns.map { "\(name).\($0)" }.joined(separator: ", ")) FROM \(name)"
        if !clause.whereClause.isEmpty { sql += " WHERE \(clause.whereClause)" }
        sql += clause.orderBy
        if limit != nil || offset != nil { sql += " LIMIT \(limit ?? -1) OFFSET \(offset ?? 0)" }
        let linkQueries = table.links.map { link -> String in
            let (own, other) = link.ownsLink == false ? ("target", "owner") : ("owner", "target")
            return "SELECT \(other) FROM \(Self.quote(link.linkName?.table ?? "")) WHERE \(own) = ? ORDER BY \(other)"
        }
        try forEachRow(sql, clause.arguments) { values in
            guard case .integer(let id) = values[0] else {
                throw SwiftDataError(.storeIsCorrupt, reason: "\(table.entity.name) has a row without an integer identifier.")
            }
            var row = try table.row(key: id, values: values.dropFirst())
            if includeLinks {
                for query in linkQueries {
                    row.links.append(try rows(query, [.integer(id)]).compactMap { row in
                        if case .integer(let key) = row.first { return key }
                        return nil
                    })
                }
            }
            try body(row)
        }
    }

    // MARK: Inspecting and verifying

    package func inspection() throws -> StoreInspection {
        /// The size of a file, 0 when there is none (a store without pending WAL has no `-wal`); a
        /// file that is there but cannot be looked at is an error, not 0 bytes.
        func size(_ path: String) throws -> Int64 {
            guard FileManager.default.fileExists(atPath: path) else { return 0 }
            return (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        }
        var rows: [String: Int64] = [:]
        for entity in schema.entities { rows[entity.name] = try rowCount(of: ModelTable(entity), filter: nil) }
        return StoreInspection(
            format: format, identifier: identifier, bytes: try size(path), walBytes: try size(path + "-wal"),
            historyTransactions: try historyTransactionCount(), rows: rows)
    }

    /// SQLite's integrity check, the tables matching the schema the file records, and every
    /// relationship pointing at a row that exists.
    package func verificationProblems() throws -> [String] {
        let problems = try integrityProblems().map { "integrity check: \($0)" }
        guard problems.isEmpty else { return problems }
        var columns: [String: Set<String>] = [:]
        for (type, name) in try schemaObjects() where type == "table" {
            columns[name] = Set(try rows("SELECT name FROM pragma_table_info(?)", [.text(name)]).compactMap { row in
                if case .text(let column) = row[0] { return column }
                return nil
            })
        }
        let layout = SchemaLayoutCheck.problems(schema, columns: columns)
        guard layout.isEmpty else { return layout }
        return try ReferenceCheckSQL.problems(schema, table: Self.quote, quote: Self.quote, primaryKey: Self.primaryKeyColumn) {
            try integer($0) ?? 0
        }
    }

    // MARK: History

    /// A file opened for following reads what is committed with each statement.
    package func readAgain() {}

    // MARK: Writing

    package func problem(storing value: StoredValue) -> String? { nil }

    package func canKeep(_ keysByRoot: [String: [Int64]]) throws -> Bool {
        // The store's writer holds the file's write lock for the whole import, and SQLite hands
        // out the next key from the largest one in the table: no key can be taken meanwhile.
        true
    }

    package func insert(_ rows: [(key: Int64?, values: [StoredValue])], into table: ModelTable, root: String?) throws -> [Int64] {
        let name = Self.quote(table.entity.name)
        let keysTable = root.map { Self.quote(Self.sharedKeysTable(root: $0)) }
        let columns = table.attributes.map { Self.quote($0.name) }
        var keys: [Int64] = []
        keys.reserveCapacity(rows.count)
        for (index, row) in rows.enumerated() {
            var key = row.key
            if let keysTable {
                key = try key.map { try run("INSERT INTO \(keysTable) (k) VALUES (?)", [.integer($0)]) } ?? run("INSERT INTO \(keysTable) DEFAULT VALUES")
            }
            let names = (key == nil ? [] : [Self.primaryKeyColumn]) + columns
            let values = (key.map { [StoredValue.integer($0)] } ?? []) + row.values
            let sql = names.isEmpty
                ? "INSERT INTO \(name) DEFAULT VALUES"
                : "INSERT INTO \(name) (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))"
            do {
                keys.append(try run(sql, values))
            } catch let error as SwiftDataError where error == .uniquenessConflict {
                throw RowConflict(index: index, reason: nil)
            }
        }
        return keys
    }

    package func setForeignKeys(_ pairs: [(row: Int64, target: Int64)], of relationship: StoredSchema.Relationship, in table: ModelTable) throws {
        let sql = "UPDATE \(Self.quote(table.entity.name)) SET \(Self.quote(relationship.name)) = ? WHERE \(Self.primaryKeyColumn) = ?"
        for pair in pairs { try run(sql, [.integer(pair.target), .integer(pair.row)]) }
    }

    package func addLinks(_ pairs: [(owner: Int64, target: Int64)], to link: LinkName) throws {
        let sql = "INSERT OR IGNORE INTO \(Self.quote(link.table)) (owner, target) VALUES (?, ?)"
        for pair in pairs { try run(sql, [.integer(pair.owner), .integer(pair.target)]) }
    }

    package func companionRecords(domain: String, keys: [String]) throws -> [String: [UInt8]] {
        try translatingErrors {
            guard !keys.isEmpty, try connection.hasCompanionTable() else { return [:] }
            return try connection.companionRecords(domain: domain, keys: keys)
        }
    }

    package func writeCompanionRecords(_ records: [CompanionRecord]) throws {
        try translatingErrors { try connection.writeCompanionRecords(records) }
    }
}
