/// How one entity is laid out in SQLite: its table, its columns and the SQL of its fixed statements.
///
/// Column types (see docs/StorageLayout.md): integers and Booleans INTEGER; `UInt64`/`UInt` INTEGER
/// with the sign bit flipped; `Double`/`Float` ANY (REAL, NaN as its 8-byte bit pattern); `Date` REAL;
/// `String`/`URL` TEXT COLLATE OSD (Swift's string order); `Data`, `UUID`, `Decimal` BLOB; other
/// Codable values TEXT holding JSON. Every table is STRICT and keyed by `_pk INTEGER PRIMARY KEY`.
final class TableLayout: Sendable {
    let entity: Schema.Entity
    /// What the entity's rows hold, the same for every store.
    let shape: RowShape
    let table: String
    /// The quoted column name of each property, by property index; `nil` for a property without a
    /// column (a to-many relationship, or the keyless side of a one-to-one).
    let columns: [String?]
    /// The properties with a column, in order.
    var columnProperties: [Int] { shape.storedProperties }
    /// The properties a full fetch loads: every property with a column but external-storage ones.
    var eagerAttributes: [Int] { shape.eagerAttributes }
    /// Whether a full fetch selects one column per property, in order: columnless properties are
    /// selected as `NULL`.
    var loadsAllAttributes: Bool { shape.loadsAllAttributes }
    let insertSQL: String
    /// The properties a full fetch selects after the primary key, in order.
    var selectedProperties: [Int] { shape.selectedProperties }
    /// `SELECT` of the primary key and the selected properties, qualified by the table name.
    let selectList: String
    let selectPrefix: String
    /// The attributes of the uniqueness constraints, in order, when the entity has any.
    let uniqueKeyAttributes: [Int]
    /// `SELECT` of the rows that share any uniqueness constraint's values with the bound ones (the
    /// attributes of `uniqueKeyAttributes`, in order), or `nil` when the entity has no constraint.
    let upsertLookupSQL: String?
    /// `UPDATE` of every column of one row, for an insert that becomes an upsert; parameter `i + 1`
    /// is property `i`, the last one the primary key.
    let fullUpdateSQL: String
    /// The relationships, by property index.
    let links: [Int: RelationshipLink]
    /// For an entity of a class hierarchy, the table that hands out primary keys for every table
    /// of the hierarchy, so that a key names one row among all of them (a relationship to the base
    /// class holds keys of any of its subclasses' rows). `nil` outside hierarchies.
    let sharedKeysTable: String?
    /// The statements that create the table, its indexes and the link tables it owns.
    let ddl: SQLiteTableDDL
    static let primaryKey = "\"_pk\""

    init(entity: Schema.Entity) {
        self.entity = entity
        let shape = RowShape(entity: entity)
        self.shape = shape
        self.table = SQL.quote(entity.name)
        self.links = entity.links
        let ddl = SQLiteTableDDL(TableDefinition(entity))
        self.ddl = ddl
        let fields = entity.fields
        let columns = fields.map { $0.hasColumn ? SQL.quote($0.name) : nil }
        self.columns = columns
        let columnProperties = shape.storedProperties
        // Numbered parameters: property `i` is always parameter `i + 1`, so generated code binds
        // every property at its own index and columnless properties bind nothing.
        // In a hierarchy the key comes from the shared keys table, bound after the properties.
        let sharedKeysTable = ddl.sharedKeysTable
        self.sharedKeysTable = sharedKeysTable
        let keyColumn = sharedKeysTable == nil ? [] : [(TableLayout.primaryKey, "?\(fields.count + 1)")]
        let inserted = columnProperties.map { (columns[$0]!, "?\($0 + 1)") } + keyColumn
        self.insertSQL = inserted.isEmpty
            ? "INSERT INTO \(table) DEFAULT VALUES"
            : "INSERT INTO \(table) (\(inserted.map(\.0).joined(separator: ", "))) VALUES (\(inserted.map(\.1).joined(separator: ", ")))"
        let selectedProperties = shape.selectedProperties
        let table = self.table
        let selected = ["\(table).\(TableLayout.primaryKey)"] + selectedProperties.map { columns[$0].map { "\(table).\($0)" } ?? "NULL" }
        self.selectList = "SELECT \(selected.joined(separator: ", "))"
        self.selectPrefix = "\(selectList) FROM \(table)"
        let indexByName = Dictionary(fields.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        let constraints = entity.uniquenessConstraints.map { $0.compactMap { indexByName[$0] } }.filter { !$0.isEmpty }
        self.uniqueKeyAttributes = constraints.flatMap { $0 }
        // `=` as the unique indexes compare: a NULL matches nothing, so a nil key always inserts,
        // and neither does a NaN (the indexes leave its rows out, ``SQLiteTableDDL/uniqueIndexCondition(_:)``).
        let terms = constraints.map { constraint -> String in
            var matches: [String] = constraint.map { "\(columns[$0] ?? "NULL") = ?" }
            if let condition = SQLiteTableDDL.uniqueIndexCondition(constraint.map { (fields[$0].name, fields[$0].storage) }) {
                matches.append(condition)
            }
            return "(" + matches.joined(separator: " AND ") + ")"
        }
        self.upsertLookupSQL = terms.isEmpty ? nil
            : "SELECT \(TableLayout.primaryKey) FROM \(table) WHERE \(terms.joined(separator: " OR "))"
        let assignments = columnProperties.map { "\(columns[$0]!) = ?\($0 + 1)" }.joined(separator: ", ")
        self.fullUpdateSQL = "UPDATE \(table) SET \(assignments.isEmpty ? "\(TableLayout.primaryKey) = \(TableLayout.primaryKey)" : assignments) WHERE \(TableLayout.primaryKey) = ?\(fields.count + 1)"
    }

    /// The column of a property that has one.
    func column(_ property: Int) -> String { columns[property] ?? "NULL" }

    /// `SELECT` of the primary key and the given properties (each with a column).
    func selectPrefix(attributes: [Int]) -> String {
        let selected = [TableLayout.primaryKey] + attributes.map { column($0) }
        return "SELECT \(selected.joined(separator: ", ")) FROM \(table)"
    }

    /// The link tables whose owner side is this entity.
    var ownedLinkTables: [String] { ddl.ownedLinkTables }

    /// The properties with a column and their fields, in order.
    var storedColumns: [(Int, Schema.Entity.Field)] { columnProperties.map { ($0, entity.fields[$0]) } }

    /// `UPDATE … SET` for the columns whose bits are set in `mask`, keyed by primary key; `nil`
    /// when none of them has a column.
    func updateSQL(mask: UInt64) -> String? {
        let assignments = columnProperties.filter { mask & (1 << UInt64($0)) != 0 }.map { "\(columns[$0]!) = ?" }
        if assignments.isEmpty { return nil }
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

    /// A string literal of `text`. (A NUL in `text` would end the statement's text: the statement
    /// then fails to prepare.)
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
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

extension LinkName {
    /// The table that holds the pairs.
    package var table: String { "osd_link_\(entity)_\(property)" }
}
