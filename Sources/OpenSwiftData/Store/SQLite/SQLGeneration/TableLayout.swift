/// How one entity is laid out in SQLite: its table, its columns and the SQL of its fixed statements.
///
/// Column types (see docs/StorageLayout.md): integers and Booleans INTEGER; `UInt64`/`UInt` INTEGER
/// with the sign bit flipped; `Double`/`Float` ANY (REAL, NaN as its 8-byte bit pattern); `Date` REAL;
/// `String`/`URL` TEXT COLLATE OSD (Swift's string order); `Data`, `UUID`, `Decimal` BLOB; other
/// Codable values TEXT holding JSON. Every table is STRICT and keyed by `_pk INTEGER PRIMARY KEY`.
final class TableLayout: Sendable {
    let entity: Schema.Entity
    let table: String
    /// The quoted column name of each attribute, by attribute index.
    let columns: [String]
    /// The attributes a full fetch loads: every attribute but external-storage ones.
    let eagerAttributes: [Int]
    /// Whether the eager attributes are all attributes, in order (so `_osdDecodeAll` applies).
    let loadsAllAttributes: Bool
    let insertSQL: String
    let selectPrefix: String
    /// The attributes of the uniqueness constraints, in order, when the entity has any.
    let uniqueKeyAttributes: [Int]
    /// `SELECT` of the rows that share any uniqueness constraint's values with the bound ones (the
    /// attributes of `uniqueKeyAttributes`, in order), or `nil` when the entity has no constraint.
    let upsertLookupSQL: String?
    /// `UPDATE` of every attribute of one row, for an insert that becomes an upsert.
    let fullUpdateSQL: String

    static let primaryKey = "\"_pk\""

    init(entity: Schema.Entity) {
        self.entity = entity
        self.table = SQL.quote(entity.name)
        self.columns = entity.attributes.map { SQL.quote($0.name) }
        let eager = entity.attributes.indices.filter { !entity.attributes[$0].isExternal }
        self.eagerAttributes = eager
        self.loadsAllAttributes = eager.count == entity.attributes.count
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        self.insertSQL = columns.isEmpty
            ? "INSERT INTO \(table) DEFAULT VALUES"
            : "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))"
        let columnNames = columns
        let selected = [TableLayout.primaryKey] + eager.map { columnNames[$0] }
        self.selectPrefix = "SELECT \(selected.joined(separator: ", ")) FROM \(table)"
        let indexByName = Dictionary(entity.attributes.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        let constraints = entity.uniquenessConstraints.map { $0.compactMap { indexByName[$0] } }.filter { !$0.isEmpty }
        self.uniqueKeyAttributes = constraints.flatMap { $0 }
        // `=` as the unique indexes compare: a NULL matches nothing, so a nil key always inserts.
        let terms = constraints.map { "(" + $0.map { "\(columnNames[$0]) = ?" }.joined(separator: " AND ") + ")" }
        self.upsertLookupSQL = terms.isEmpty ? nil
            : "SELECT \(TableLayout.primaryKey) FROM \(table) WHERE \(terms.joined(separator: " OR "))"
        let assignments = columnNames.map { "\($0) = ?" }.joined(separator: ", ")
        self.fullUpdateSQL = "UPDATE \(table) SET \(assignments) WHERE \(TableLayout.primaryKey) = ?"
    }

    /// `SELECT` of the primary key and the given attributes.
    func selectPrefix(attributes: [Int]) -> String {
        let selected = [TableLayout.primaryKey] + attributes.map { columns[$0] }
        return "SELECT \(selected.joined(separator: ", ")) FROM \(table)"
    }

    /// The statements that create the table and its indexes.
    var createStatements: [String] { [createTableSQL(named: table)] + indexStatements }

    /// `CREATE TABLE` of the entity's table under the given (quoted) name.
    func createTableSQL(named name: String) -> String {
        var definitions = ["\(TableLayout.primaryKey) INTEGER PRIMARY KEY"]
        for (index, attribute) in entity.attributes.enumerated() {
            definitions.append("\(columns[index]) \(SQL.columnType(attribute.storage))\(attribute.isOptional ? "" : " NOT NULL")")
        }
        return "CREATE TABLE \(name) (\(definitions.joined(separator: ", "))) STRICT"
    }

    /// The statements that create the entity's unique and regular indexes.
    var indexStatements: [String] {
        var statements: [String] = []
        for (number, constraint) in entity.uniquenessConstraints.enumerated() {
            let names = constraint.map(SQL.quote).joined(separator: ", ")
            statements.append("CREATE UNIQUE INDEX \(SQL.quote("osd_unique_\(entity.name)_\(number)")) ON \(table) (\(names))")
        }
        for (number, index) in entity.indices.enumerated() {
            let names = index.map(SQL.quote).joined(separator: ", ")
            statements.append("CREATE INDEX \(SQL.quote("osd_index_\(entity.name)_\(number)")) ON \(table) (\(names))")
        }
        return statements
    }

    /// `UPDATE … SET` for the attributes whose bits are set in `mask`, keyed by primary key.
    func updateSQL(mask: UInt64) -> String {
        let assignments = columns.indices.filter { mask & (1 << UInt64($0)) != 0 }.map { "\(columns[$0]) = ?" }
        return "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE \(TableLayout.primaryKey) = ?"
    }

    var deleteSQL: String { "DELETE FROM \(table) WHERE \(TableLayout.primaryKey) = ?" }
}

/// Small helpers for writing SQL text.
enum SQL {
    /// Quotes an identifier.
    static func quote(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The column type of a storage class.
    static func columnType(_ storage: StorageClass) -> String {
        switch storage {
        case .integer, .unsignedInteger: "INTEGER"
        case .real: "ANY"
        case .date: "REAL"
        case .text: "TEXT COLLATE \(SwiftSemantics.collationName)"
        case .blob, .uuid, .decimal: "BLOB"
        case .json: "TEXT"
        }
    }
}
