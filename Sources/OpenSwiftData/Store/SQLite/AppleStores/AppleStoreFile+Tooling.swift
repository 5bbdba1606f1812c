import Foundation

/// A store Apple's frameworks wrote, as the tools read it: rows, counts, inspection and
/// verification. It has no OpenSwiftData history, takes no filter or sort yet (`osd query
/// --where`/`--sort` on such a store is refused, saying so), and is never written.
extension AppleStoreFile: StoreTooling, StoreToolingProvider {
    package static func recognizes(_ location: String) throws -> Bool {
        try isAppleStore(at: location)
    }

    package static func openTooling(at location: String, name: String, access: StoreToolingAccess) throws -> any StoreTooling {
        if case .writing = access {
            throw SwiftDataError(.storeIsReadOnly, reason: "\(location) was written by Apple's Core Data or SwiftData: the tools read it and never write it. Import it into an OpenSwiftData store to change it.")
        }
        return try AppleStoreFile(path: location)
    }

    package static func isVacant(_ location: String, name: String) -> Bool {
        StoreFile.isVacant(location, name: name)
    }

    package static func creatingStore<R>(at location: String, name: String, schema: StoredSchema, _ body: (any StoreTooling) throws -> R) throws -> R {
        throw SwiftDataError(.storeIsReadOnly, reason: "\(location) was written by Apple's Core Data or SwiftData: the tools read it and never write it. Name a new path to create an OpenSwiftData store there.")
    }

    package var displayName: String { path }
    package var schema: StoredSchema { layout.schema }

    private func refuse(filter: QueryExpression?, sort: [QuerySort]) throws {
        guard filter == nil, sort.isEmpty else {
            throw SwiftDataError(.unsupportedPredicate, reason: "\(path) was written by Apple's Core Data or SwiftData: the tools read its rows whole, without a filter or a sort, for now. Export it, or import it into an OpenSwiftData store, to query it.")
        }
    }

    package func rowCount(of table: ModelTable, filter: QueryExpression?) throws -> Int64 {
        try refuse(filter: filter, sort: [])
        let entity = try entity(table)
        guard case .integer(let count)? = try values("SELECT count(*) FROM \(SQL.quote(entity.table)) WHERE Z_ENT = ?", [.integer(entity.number)]).first?.first
        else { return 0 }
        return count
    }

    package func forEachRow(
        of table: ModelTable, filter: QueryExpression?, sort: [QuerySort], limit: Int?, offset: Int?, includeLinks: Bool,
        _ body: (ModelRow) throws -> Void
    ) throws {
        try refuse(filter: filter, sort: sort)
        let entity = try entity(table)
        // The tool's table lists attributes (stored in the row, then beside it) and foreign keys
        // by name; each is read from its column.
        let attributes = try table.attributes.map { attribute in
            guard let index = entity.attributes.firstIndex(where: { $0.name == attribute.name }) else {
                throw SwiftDataError(.storeIsCorrupt, reason: "\(path): \(entity.model.name) has no attribute \(attribute.name)")
            }
            return index
        }
        let foreignKeys = table.foreignKeys.map { relationship in entity.foreignKeys.first { $0.relationship.name == relationship.name }?.column }
        let attributeColumns = attributes.map { entity.attributeColumns[$0] }
        let columns = ["Z_PK"] + attributeColumns.joined() + foreignKeys.map { $0 ?? "NULL" }
        var sql = "SELECT \(columns.map { $0 == "NULL" ? $0 : SQL.quote($0) }.joined(separator: ", ")) FROM \(SQL.quote(entity.table)) WHERE Z_ENT = ? ORDER BY Z_PK"
        if limit != nil || offset != nil { sql += " LIMIT \(limit ?? -1) OFFSET \(offset ?? 0)" }
        let links = table.links.map { link in entity.toManyQueries.first { $0.relationship.name == link.name }?.sql }
        for values in try values(sql, [.integer(entity.number)]) {
            guard case .integer(let key) = values[0] else { continue }
            var row = ModelRow(id: key, attributes: [], foreignKeys: [], links: [])
            var column = 1
            for (position, index) in attributes.enumerated() {
                let count = attributeColumns[position].count
                row.attributes.append(try decode(values[column ..< column + count], of: entity.attributes[index], in: entity, key: key))
                column += count
            }
            for value in values[column...] {
                if case .integer(let target) = value { row.foreignKeys.append(target) } else { row.foreignKeys.append(nil) }
            }
            if includeLinks {
                for query in links {
                    guard let query else {
                        row.links.append([])
                        continue
                    }
                    row.links.append(try self.values(query, [.integer(key)]).compactMap { related in
                        if case .integer(let target) = related[0] { return target }
                        return nil
                    })
                }
            }
            try body(row)
        }
    }

    package func reading<R>(_ body: () throws -> R) throws -> R {
        do {
            return try connection.readTransaction(body)
        } catch let error as SQLiteError {
            throw error.swiftDataError.adding(context: "Reading \(path)")
        }
    }

    package func inspection() throws -> StoreInspection {
        var rows: [String: Int64] = [:]
        for entity in layout.schema.entities { rows[entity.name] = try rowCount(of: ModelTable(entity), filter: nil) }
        func size(_ path: String) throws -> Int64 {
            guard FileManager.default.fileExists(atPath: path) else { return 0 }   // no -wal: nothing pending
            return (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        }
        var inspection = StoreInspection(
            format: 0, identifier: storeUUID, bytes: try size(path), walBytes: try size(path + "-wal"), historyTransactions: 0, rows: rows)
        inspection.writtenBy = "Apple's Core Data or SwiftData" + (frameworkVersion.map { " (Core Data framework version \($0))" } ?? "")
            + (isMirroredToCloudKit ? ", mirrored to CloudKit" : "")
        return inspection
    }

    package func verificationProblems() throws -> [String] {
        var problems = layout.unreadable.map { "\($0.property) is not read: \($0.reason)" }
        for row in try values("PRAGMA integrity_check") {
            if case .text(let text) = row[0], text != "ok" { problems.append(text) }
        }
        // Every row's values decode as the model's types, and every to-one names a row there is.
        for entity in layout.schema.entities {
            let table = ModelTable(entity)
            do {
                try forEachRow(of: table, filter: nil, sort: [], limit: nil, offset: nil, includeLinks: false) { _ in }
            } catch let error as SwiftDataError {
                problems.append(error.reason ?? "\(error)")
            }
        }
        return problems
    }

    // MARK: History: none of OpenSwiftData's

    package func forEachHistoryTransaction(
        after: Int64, author: String?, newestFirst: Bool, _ body: (StoreHistoryTransaction) throws -> Bool
    ) throws {}

    package func historyFieldLayouts() throws -> HistoryFieldLayouts { HistoryFieldLayouts(first: []) }

    package func readAgain() throws {}

    // MARK: Writing: never

    package func problem(storing value: StoredValue) -> String? { "the store was written by Apple's Core Data or SwiftData and is only read" }

    package func transaction<R>(_ body: () throws -> R) throws -> R {
        throw SwiftDataError(.storeIsReadOnly, reason: "\(path) was written by Apple's Core Data or SwiftData and is only read.")
    }

    package func canKeep(_ keysByRoot: [String: [Int64]]) throws -> Bool { false }

    package func insert(_ rows: [(key: Int64?, values: [StoredValue])], into table: ModelTable, root: String?) throws -> [Int64] {
        try transaction { [] }
    }

    package func setForeignKeys(_ pairs: [(row: Int64, target: Int64)], of relationship: StoredSchema.Relationship, in table: ModelTable) throws {
        try transaction {}
    }

    package func addLinks(_ pairs: [(owner: Int64, target: Int64)], to link: LinkName) throws {
        try transaction {}
    }

    package func recordInsertions(_ keys: [(entity: String, keys: [Int64])], author: String) throws {
        try transaction {}
    }

    package func companionRecords(domain: String, keys: [String]) throws -> [String: [UInt8]] { [:] }

    package func writeCompanionRecords(_ records: [CompanionRecord]) throws {
        try transaction {}
    }
}
