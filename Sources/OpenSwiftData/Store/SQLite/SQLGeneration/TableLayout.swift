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
    static let primaryKey = "\"_pk\""

    init(entity: Schema.Entity) {
        self.entity = entity
        let shape = RowShape(entity: entity)
        self.shape = shape
        self.table = SQL.quote(entity.name)
        self.links = entity.links
        self.ownedLinkTables = TableLayout.ownedLinkTables(of: entity)
        let fields = entity.fields
        let columns = fields.map { $0.hasColumn ? SQL.quote($0.name) : nil }
        self.columns = columns
        let columnProperties = shape.storedProperties
        // Numbered parameters: property `i` is always parameter `i + 1`, so generated code binds
        // every property at its own index and columnless properties bind nothing.
        // In a hierarchy the key comes from the shared keys table, bound after the properties.
        let sharedKeysTable = entity.isInHierarchy ? SQL.quote("osd_keys_\(entity.root.name)") : nil
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
        // and neither does a NaN (the indexes leave its rows out, ``uniqueIndexCondition``).
        let terms = constraints.map { constraint -> String in
            var matches: [String] = constraint.map { "\(columns[$0] ?? "NULL") = ?" }
            if let condition = Self.uniqueIndexCondition(fields: fields, constraint: constraint) { matches.append(condition) }
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

    /// The statements that create the table, its indexes and the link tables it owns.
    var createStatements: [String] {
        let keys = sharedKeysTable.map { ["CREATE TABLE IF NOT EXISTS \($0) (k INTEGER PRIMARY KEY AUTOINCREMENT)"] } ?? []
        return keys + [createTableSQL(named: table)] + indexStatements + linkTableStatements
    }

    /// `CREATE TABLE` of the entity's table under the given (quoted) name.
    func createTableSQL(named name: String) -> String {
        var definitions = ["\(TableLayout.primaryKey) INTEGER PRIMARY KEY"]
        for index in columnProperties {
            let field = entity.fields[index]
            definitions.append("\(columns[index]!) \(SQL.columnType(field.storage!))\(field.isOptional ? "" : " NOT NULL")")
        }
        return "CREATE TABLE \(name) (\(definitions.joined(separator: ", "))) STRICT"
    }

    /// The statements that create the entity's unique and regular indexes, and one index per
    /// foreign key (deletes and to-many loads look rows up by it).
    var indexStatements: [String] {
        var statements: [String] = []
        for number in entity.uniquenessConstraints.indices {
            statements.append(uniqueIndexStatement(number))
        }
        for (number, index) in entity.indices.enumerated() {
            let names = index.map(SQL.quote).joined(separator: ", ")
            statements.append("CREATE INDEX \(SQL.quote("osd_index_\(entity.name)_\(number)")) ON \(table) (\(names))")
        }
        for (property, link) in links.sorted(by: { $0.key < $1.key }) where link.storage == .foreignKey {
            statements.append("CREATE INDEX IF NOT EXISTS \(SQL.quote("osd_fk_\(entity.name)_\(link.name)")) ON \(table) (\(columns[property]!))")
        }
        return statements
    }

    /// `CREATE UNIQUE INDEX` of the entity's uniqueness constraint `number`.
    func uniqueIndexStatement(_ number: Int) -> String {
        let constraint = entity.uniquenessConstraints[number]
        let names = constraint.map(SQL.quote).joined(separator: ", ")
        let properties = constraint.compactMap { name in entity.fields.firstIndex { $0.name == name } }
        let condition = Self.uniqueIndexCondition(fields: entity.fields, constraint: properties).map { " WHERE \($0)" } ?? ""
        return "CREATE UNIQUE INDEX \(SQL.quote("osd_unique_\(entity.name)_\(number)")) ON \(table) (\(names))\(condition)"
    }

    /// The rows a unique index holds, when not all: those without a NaN in a floating-point
    /// property of the constraint (stored as a BLOB). NaN equals nothing in Swift, not even
    /// itself, so a model with one never matches another, as a `nil` does not.
    static func uniqueIndexCondition(fields: [Schema.Entity.Field], constraint: [Int]) -> String? {
        let terms = constraint.filter { fields[$0].storage == StorageClass.real }.map { "typeof(\(SQL.quote(fields[$0].name))) <> 'blob'" }
        return terms.isEmpty ? nil : terms.joined(separator: " AND ")
    }

    /// The numbers of the uniqueness constraints that have a floating-point property (whose
    /// indexes leave NaN rows out).
    var uniqueConstraintsWithFloatingPoint: [Int] {
        entity.uniquenessConstraints.indices.filter { number in
            entity.uniquenessConstraints[number].contains { name in entity.fields.first { $0.name == name }?.storage == .real }
        }
    }

    /// The link tables whose owner side is this entity.
    let ownedLinkTables: [String]

    /// The link tables whose owner side is `entity`.
    static func ownedLinkTables(of entity: Schema.Entity) -> [String] {
        entity.links.values.compactMap { link in
            if case .link(let name, true) = link.storage { return name.table }
            return nil
        }.sorted()
    }

    /// The statements that create the link tables this entity owns.
    var linkTableStatements: [String] { ownedLinkTables.flatMap(linkTableStatements(for:)) }

    /// The statements that create one link table: (owner, target) pairs, indexed both ways.
    func linkTableStatements(for name: String) -> [String] {
        let table = SQL.quote(name)
        return [
            "CREATE TABLE IF NOT EXISTS \(table) (owner INTEGER NOT NULL, target INTEGER NOT NULL, PRIMARY KEY (owner, target)) STRICT, WITHOUT ROWID",
            "CREATE INDEX IF NOT EXISTS \(SQL.quote(name + "_target")) ON \(table) (target, owner)",
        ]
    }

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
