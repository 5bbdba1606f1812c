import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres

/// `osd verify`: whether a store is sound. On a file: SQLite's integrity check, the tables
/// matching the schema the file records, and every relationship pointing at a row that exists. On
/// PostgreSQL: the tables and their column types matching the recorded schema, every relationship
/// pointing at a row that exists, and the key sequences and the history counter ahead of the keys
/// and history numbers in use (behind them, the next saves would collide).
package struct StoreVerifier {
    package var store: String
    package var name: String

    /// Verifies the store file at `store`, or the PostgreSQL store of the configuration `name`
    /// when `store` is a server's URL.
    package init(store: String, name: String = "default") {
        self.store = store
        self.name = name
    }

    /// The problems found (empty when the store is sound), and the store's name for messages
    /// (without a password).
    package func check() throws -> (store: String, problems: [String]) {
        if let url = try StoreArgument.postgresURL(store) {
            let access = try PostgresStoreAccess(url: url, name: name)
            return (access.displayName, try problems(of: access))
        }
        return (store, try problems(of: StoreFile(path: store)))
    }

    private func problems(of file: StoreFile) throws -> [String] {
        let problems = try file.integrityProblems().map { "integrity check: \($0)" }
        guard problems.isEmpty else { return problems }
        var columns: [String: Set<String>] = [:]
        for (type, name) in try file.schemaObjects() where type == "table" {
            columns[name] = Set(try file.rows("SELECT name FROM pragma_table_info(?)", [.text(name)]).compactMap { row in
                if case .text(let column) = row[0] { return column }
                return nil
            })
        }
        let layout = layoutProblems(file.schema, columns: columns)
        guard layout.isEmpty else { return layout }
        return try referenceProblems(file.schema, table: StoreFile.quote) { try file.integer($0) ?? 0 }
    }

    private func problems(of store: PostgresStoreAccess) throws -> [String] {
        let schema = store.schema
        var columns: [String: Set<String>] = [:]
        var types: [String: [String: String]] = [:]
        for (table, column, type) in try store.columns() {
            columns[table, default: []].insert(column)
            types[table, default: [:]][column] = type
        }
        var problems = layoutProblems(schema, columns: columns)
        for entity in schema.entities {
            for attribute in entity.attributes {
                guard let type = types[entity.name]?[attribute.name] else { continue }
                let expected = PostgresStoreAccess.columnType(attribute.storage)
                if type != expected { problems.append("\(entity.name).\(attribute.name) is \(type), not \(expected)") }
            }
        }
        guard problems.isEmpty else { return problems }
        problems += try referenceProblems(schema, table: store.table) { try store.integers($0).first ?? 0 }
        for root in Set(schema.entities.map { schema.root(of: $0.name) }).sorted() {
            let tables = ([root] + schema.descendants(of: root).map(\.name)).map(store.table)
            let highest = try store.integers("SELECT coalesce(max(k), 0) FROM (\(tables.map { "SELECT max(_pk) AS k FROM \($0)" }.joined(separator: " UNION ALL "))) AS keys").first ?? 0
            guard let next = try store.lastKey(root: root) else {
                problems.append("the key sequence of \(root) is missing")
                continue
            }
            if next < highest { problems.append("the key sequence of \(root) is at \(next), behind the key \(highest) in use: the next saves would collide") }
        }
        if let (counter, highest) = try store.historyCounter(), counter < highest {
            problems.append("the history counter is at \(counter), behind transaction \(highest): the next saves would collide")
        }
        return problems
    }

    /// Models without a table, attributes without a column, link tables missing.
    private func layoutProblems(_ schema: StoredSchema, columns: [String: Set<String>]) -> [String] {
        var problems: [String] = []
        for entity in schema.entities {
            guard let present = columns[entity.name] else {
                problems.append("model \(entity.name) has no table")
                continue
            }
            for attribute in entity.attributes where !present.contains(attribute.name) {
                problems.append("\(entity.name).\(attribute.name) has no column")
            }
        }
        for link in schema.links ?? [] where columns[link] == nil {
            problems.append("link table \(link) is missing")
        }
        return problems
    }

    /// Foreign keys and link-table pairs that name rows that do not exist. `table` names a table
    /// in SQL; `count` runs a `SELECT count(*)`.
    private func referenceProblems(_ schema: StoredSchema, table: (String) -> String, count: (String) throws -> Int64) throws -> [String] {
        /// The primary keys of a model's rows and its subclasses' rows.
        func keys(_ model: String) -> String {
            ([model] + schema.descendants(of: model).map(\.name))
                .map { "SELECT \(StoreFile.primaryKeyColumn) FROM \(table($0))" }
                .joined(separator: " UNION ALL ")
        }
        var problems: [String] = []
        for entity in schema.entities {
            for relationship in entity.foreignKeys {
                let column = StoreFile.quote(relationship.name)
                let dangling = try count("SELECT count(*) FROM \(table(entity.name)) WHERE \(column) IS NOT NULL AND \(column) NOT IN (\(keys(relationship.destination)))")
                if dangling > 0 { problems.append("\(dangling) \(entity.name) rows have a \(relationship.name) that does not exist") }
            }
            for relationship in entity.ownedLinks {
                guard let link = relationship.linkName else { continue }
                let (own, other) = relationship.ownsLink == false ? ("target", "owner") : ("owner", "target")
                let dangling = try count("SELECT count(*) FROM \(table(link.table)) WHERE \(own) NOT IN (\(keys(entity.name))) OR \(other) NOT IN (\(keys(relationship.destination)))")
                if dangling > 0 { problems.append("\(dangling) pairs of \(entity.name).\(relationship.name) refer to rows that do not exist") }
            }
        }
        return problems
    }

}
