/// The SQLite statements that create one entity's table, its indexes and the link tables it owns,
/// from its ``TableDefinition``.
struct SQLiteTableDDL: Sendable {
    let definition: TableDefinition
    /// The entity's table, quoted.
    let table: String

    init(_ definition: TableDefinition) {
        self.definition = definition
        table = SQL.quote(definition.entity)
    }

    /// The table that hands out primary keys for every table of the entity's class hierarchy
    /// (quoted), or `nil` outside hierarchies.
    var sharedKeysTable: String? { definition.hierarchyRoot.map { SQL.quote("osd_keys_\($0)") } }

    /// The statements that create the table, its indexes and the link tables it owns.
    var createStatements: [String] {
        let keys = sharedKeysTable.map { ["CREATE TABLE IF NOT EXISTS \($0) (k INTEGER PRIMARY KEY AUTOINCREMENT)"] } ?? []
        return keys + [createTableSQL(named: table)] + indexStatements + linkTableStatements
    }

    /// `CREATE TABLE` of the entity's table under the given (quoted) name.
    func createTableSQL(named name: String) -> String {
        let definitions = ["\(TableLayout.primaryKey) INTEGER PRIMARY KEY"] + definition.columns.map { column in
            "\(SQL.quote(column.name)) \(SQL.columnType(column.storage))\(column.isOptional ? "" : " NOT NULL")"
        }
        return "CREATE TABLE \(name) (\(definitions.joined(separator: ", "))) STRICT"
    }

    /// The statements that create the entity's unique and regular indexes, and one index per
    /// foreign key (deletes and to-many loads look rows up by it).
    var indexStatements: [String] {
        var statements = definition.uniquenessConstraints.indices.map(uniqueIndexStatement)
        for (number, index) in definition.indices.enumerated() {
            let names = index.map(SQL.quote).joined(separator: ", ")
            statements.append("CREATE INDEX \(SQL.quote("osd_index_\(definition.entity)_\(number)")) ON \(table) (\(names))")
        }
        for name in definition.foreignKeys {
            statements.append("CREATE INDEX IF NOT EXISTS \(SQL.quote("osd_fk_\(definition.entity)_\(name)")) ON \(table) (\(SQL.quote(name)))")
        }
        return statements
    }

    /// `CREATE UNIQUE INDEX` of the entity's uniqueness constraint `number`.
    func uniqueIndexStatement(_ number: Int) -> String {
        let constraint = definition.uniquenessConstraints[number]
        let names = constraint.map(SQL.quote).joined(separator: ", ")
        let condition = Self.uniqueIndexCondition(constraint.map { ($0, definition.storage(of: $0)) }).map { " WHERE \($0)" } ?? ""
        return "CREATE UNIQUE INDEX \(SQL.quote("osd_unique_\(definition.entity)_\(number)")) ON \(table) (\(names))\(condition)"
    }

    /// The rows a unique index holds, when not all: those without a NaN in a floating-point
    /// column of the constraint (stored as a BLOB). NaN equals nothing in Swift, not even itself,
    /// so a model with one never matches another, as a `nil` does not.
    static func uniqueIndexCondition(_ columns: [(name: String, storage: StorageClass?)]) -> String? {
        let terms = columns.filter { $0.storage == .real }.map { "typeof(\(SQL.quote($0.name))) <> 'blob'" }
        return terms.isEmpty ? nil : terms.joined(separator: " AND ")
    }

    /// The numbers of the uniqueness constraints that have a floating-point column (whose indexes
    /// leave NaN rows out).
    var uniqueConstraintsWithFloatingPoint: [Int] {
        definition.uniquenessConstraints.indices.filter { number in
            definition.uniquenessConstraints[number].contains { definition.storage(of: $0) == .real }
        }
    }

    /// The link tables the entity owns.
    var ownedLinkTables: [String] { definition.ownedLinks.map(\.table) }

    /// The statements that create the link tables the entity owns.
    var linkTableStatements: [String] { ownedLinkTables.flatMap(Self.linkTableStatements(for:)) }

    /// The statements that create one link table: (owner, target) pairs, indexed both ways.
    static func linkTableStatements(for name: String) -> [String] {
        let table = SQL.quote(name)
        return [
            "CREATE TABLE IF NOT EXISTS \(table) (owner INTEGER NOT NULL, target INTEGER NOT NULL, PRIMARY KEY (owner, target)) STRICT, WITHOUT ROWID",
            "CREATE INDEX IF NOT EXISTS \(SQL.quote(name + "_target")) ON \(table) (target, owner)",
        ]
    }
}
