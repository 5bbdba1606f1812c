import OpenSwiftData
import PostgresNIO

/// How one entity is laid out in PostgreSQL: its table in the configuration's namespace, its
/// columns and the text of its fixed statements. Parameters are numbered by position among the
/// entity's stored properties, so a row binds its values in property order.
///
/// Column types (see docs/StorageLayout.md): integers, Booleans and `UInt64` (sign bit flipped)
/// BIGINT; `Double`, `Float` and `Date` DOUBLE PRECISION; `String` and `URL` TEXT COLLATE "C";
/// `Data`, `UUID` and `Decimal` BYTEA; other Codable values TEXT holding JSON. Every table is keyed
/// by `_pk BIGINT`, drawn from one sequence per class hierarchy.
final class PostgresTable: Sendable {
    let entity: Schema.Entity
    let shape: RowShape
    /// The qualified, quoted table name.
    let table: String
    /// The quoted column name of each property, by property index; `nil` for a property without a column.
    let columns: [String?]
    /// The sequence that hands out the keys of the entity's class hierarchy.
    let keySequence: String
    /// The primary key and the selected properties of `t0`, comma-separated.
    let selectList: String
    /// `SELECT` of the primary key and the selected properties, from the table as `t0`.
    let selectPrefix: String
    /// The attributes of the uniqueness constraints, in order.
    let uniqueKeyAttributes: [Int]
    /// The properties of each uniqueness constraint that has a column.
    let uniqueConstraints: [[Int]]
    /// `SELECT` of the rows that share any uniqueness constraint's values with the bound ones.
    let upsertLookupSQL: String?
    /// `UPDATE` of every stored column of one row; the key is the last parameter.
    let fullUpdateSQL: String
    /// The pairs of the relationships this entity owns.
    let ownedLinks: [LinkName]
    /// The link tables this entity owns, qualified and quoted.
    let ownedLinkTables: [String]
    let namespace: String
    /// The statements that create the table, its indexes and the link tables it owns.
    let ddl: PostgresTableDDL

    /// `INSERT` of one row, its key first, each parameter cast to its column's type: prepared
    /// once per connection (``PostgresStatement/prepared(_:_:)``).
    let preparedInsertSQL: String
    /// How many parameters ``preparedInsertSQL`` takes: the key, then each stored property.
    var preparedInsertParameters: Int { shape.storedProperties.count + 1 }

    init(entity: Schema.Entity, namespace: String) {
        self.entity = entity
        self.namespace = namespace
        let shape = RowShape(entity: entity)
        self.shape = shape
        let table = "\(namespace).\(PostgresSQL.quote(entity.name))"
        self.table = table
        let ddl = PostgresTableDDL(TableDefinition(entity), namespace: namespace)
        self.ddl = ddl
        self.keySequence = ddl.keySequence
        let columns = entity.fields.map { $0.hasColumn ? PostgresSQL.quote($0.name) : nil }
        self.columns = columns
        let stored = shape.storedProperties
        let names = stored.map { columns[$0]! }
        let parameters = stored.indices.map { "$\($0 + 1)" }
        let casts = ["$1::int8"] + stored.enumerated().map { offset, property in
            "$\(offset + 2)::\(Self.parameterType(of: property, in: entity))"
        }
        self.preparedInsertSQL = "INSERT INTO \(table) (\(([PostgresSQL.primaryKey] + names).joined(separator: ", "))) VALUES (\(casts.joined(separator: ", ")))"
        let selected = ["t0.\(PostgresSQL.primaryKey)"] + shape.selectedProperties.map { columns[$0].map { "t0.\($0)" } ?? "NULL" }
        self.selectList = selected.joined(separator: ", ")
        self.selectPrefix = "SELECT \(selectList) FROM \(table) AS t0"
        let indexByName = Dictionary(entity.fields.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        let constraints = entity.uniquenessConstraints.map { $0.compactMap { indexByName[$0] } }.filter { !$0.isEmpty }
        self.uniqueConstraints = constraints
        self.uniqueKeyAttributes = constraints.flatMap { $0 }
        var number = 0
        let terms = constraints.map { constraint in
            Self.match(constraint, entity: entity, columns: columns) { _ in
                number += 1
                return "$\(number)"
            }
        }
        self.upsertLookupSQL = terms.isEmpty ? nil
            : "SELECT \(PostgresSQL.primaryKey) FROM \(table) WHERE \(terms.joined(separator: " OR "))"
        let assignments = zip(names, parameters).map { "\($0) = \($1)" }.joined(separator: ", ")
        self.fullUpdateSQL = "UPDATE \(table) SET \(assignments.isEmpty ? "\(PostgresSQL.primaryKey) = \(PostgresSQL.primaryKey)" : assignments) WHERE \(PostgresSQL.primaryKey) = $\(stored.count + 1)"
        let ownedLinks = entity.links.values.compactMap { link -> LinkName? in
            if case .link(let name, true) = link.storage { return name }
            return nil
        }.sorted { $0.table < $1.table }
        self.ownedLinks = ownedLinks
        self.ownedLinkTables = ownedLinks.map { "\(namespace).\(PostgresSQL.quote($0.table))" }
    }

    /// `INSERT` of `rows` rows with their keys: per row the key, then the stored properties.
    func batchInsertSQL(rows: Int) -> String {
        let names = [PostgresSQL.primaryKey] + shape.storedProperties.map { columns[$0]! }
        let width = names.count
        let tuples = (0..<rows).map { row in
            "(" + (1...width).map { "$\(row * width + $0)" }.joined(separator: ", ") + ")"
        }
        return "INSERT INTO \(table) (\(names.joined(separator: ", "))) VALUES \(tuples.joined(separator: ", "))"
    }

    /// `UPDATE` of `properties` in `rows` rows: per row the key, then the properties' values.
    func batchUpdateSQL(properties: [Int], rows: Int) -> String {
        let width = properties.count + 1
        let types = ["int8"] + properties.map(parameterType(of:))
        let tuples = (0..<rows).map { row in
            "(" + types.enumerated().map { "$\(row * width + $0.offset + 1)::\($0.element)" }.joined(separator: ", ") + ")"
        }
        let names = ["k"] + properties.indices.map { "p\($0)" }
        let assignments = properties.enumerated().map { "\(columns[$1] ?? "NULL") = v.p\($0)" }
        return "UPDATE \(table) AS t SET \(assignments.joined(separator: ", ")) FROM (VALUES \(tuples.joined(separator: ", "))) AS v(\(names.joined(separator: ", "))) WHERE t.\(PostgresSQL.primaryKey) = v.k"
    }

    /// The condition that a row holds a uniqueness constraint's values, each bound to the parameter
    /// `parameter` names for its property. Text matches by its NFC form, as the unique index holds
    /// it (``PostgresTableDDL/declaredIndexes``); a NaN matches no row, as the unique index leaves
    /// NaN rows out (``PostgresTableDDL/uniqueIndexCondition(_:)``).
    static func match(_ constraint: [Int], entity: Schema.Entity, columns: [String?], parameter: (Int) -> String) -> String {
        var matches: [String] = constraint.map { property in
            let column = columns[property] ?? "NULL"
            let value = parameter(property)
            return entity.fields[property].storage == .text
                ? "\(PostgresSQL.swiftText(column)) = \(PostgresSQL.swiftText(value))"
                : "\(column) = \(value)"
        }
        if let condition = PostgresTableDDL.uniqueIndexCondition(constraint.map { (entity.fields[$0].name, entity.fields[$0].storage) }) {
            matches.append(condition)
        }
        return "(" + matches.joined(separator: " AND ") + ")"
    }

    /// How many rows one batched `INSERT` holds: a thousand, within PostgreSQL's 65,535 parameters.
    var batchRows: Int { min(1_000, PostgresSQL.maximumParameters / (shape.storedProperties.count + 1)) }

    /// The type a statement casts a property's parameter to (``PostgresSQL/parameterType(_:)``).
    func parameterType(of property: Int) -> String { Self.parameterType(of: property, in: entity) }

    /// The type a statement casts a parameter of `entity`'s property to: its storage class's, or
    /// text for a property with none.
    static func parameterType(of property: Int, in entity: Schema.Entity) -> String {
        entity.fields[property].storage.map(PostgresSQL.parameterType) ?? "text"
    }

    /// The column of a property that has one.
    func column(_ property: Int) -> String { columns[property] ?? "NULL" }

    /// The qualified link table of a relationship's pairs.
    func linkTable(_ name: LinkName) -> String { Self.linkTable(name, namespace: namespace) }

    /// A link table of the quoted `namespace`, qualified and quoted.
    static func linkTable(_ name: LinkName, namespace: String) -> String { "\(namespace).\(PostgresSQL.quote(name.table))" }

    /// Throws ``SwiftDataError/storeIsCorrupt`` when a column of a result, the key followed by
    /// `properties`, arrived with a type other than one the store reads for it: another program
    /// changed the column's type while the store was open, and its values would be read wrong.
    /// Checks one row; every row of a result has the same types. `keyed`: whether the key comes
    /// first (every read of rows but the load of one property).
    func checkTypes(of row: PostgresRowReader, properties: [Int], location: PostgresLocation, keyed: Bool = true) throws {
        var retyped: [String] = []
        if keyed, let key = row.row.first?.dataType, key != .int8 {
            retyped.append("\(entity.name).\(PostgresSQL.primaryKey) (\(key), where the store writes \(PostgresDataType.int8))")
        }
        for (offset, property) in properties.enumerated() {
            let column = offset + (keyed ? 1 : 0)
            guard column < row.row.count, let changed = retypedColumn(property, holding: row.row[column].dataType) else { continue }
            retyped.append(changed)
        }
        guard retyped.isEmpty else { throw Self.retyped(retyped, location: location) }
    }

    /// The property and the types, when its column holds `type`, which the store does not read as
    /// the property's (``PostgresSQL/readableDataTypes(_:)``); `nil` when it does, or when the
    /// property has no column.
    func retypedColumn(_ property: Int, holding type: PostgresDataType) -> String? {
        guard columns[property] != nil, let storage = entity.fields[property].storage else { return nil }
        let readable = PostgresSQL.readableDataTypes(storage)
        guard !readable.contains(type) else { return nil }
        return "\(entity.name).\(entity.fields[property].name) (\(type), where the store writes \(readable[0]))"
    }

    /// The error for columns another program gave types the store does not read
    /// (``retypedColumn(_:holding:)`` describes each).
    static func retyped(_ columns: [String], location: PostgresLocation) -> SwiftDataError {
        SwiftDataError(.storeIsCorrupt, reason: "PostgreSQL \(location.displayName): another program changed the type of the column of \(columns.joined(separator: ", ")). The store would read those values wrong, so it reads none; change the columns back, or migrate the models to the new types.")
    }

    /// The primary key and the given properties of `t0`, comma-separated.
    func selectList(attributes: [Int]) -> String {
        (["t0.\(PostgresSQL.primaryKey)"] + attributes.map { columns[$0].map { "t0.\($0)" } ?? "NULL" }).joined(separator: ", ")
    }
}
