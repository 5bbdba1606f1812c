import OpenSwiftData

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
    let insertSQL: String
    /// The primary key and the selected properties of `t0`, comma-separated.
    let selectList: String
    /// `SELECT` of the primary key and the selected properties, from the table as `t0`.
    let selectPrefix: String
    /// The attributes of the uniqueness constraints, in order.
    let uniqueKeyAttributes: [Int]
    /// `SELECT` of the rows that share any uniqueness constraint's values with the bound ones.
    let upsertLookupSQL: String?
    /// `UPDATE` of every stored column of one row; the key is the last parameter.
    let fullUpdateSQL: String
    /// The pairs of the relationships this entity owns.
    let ownedLinks: [LinkName]
    /// The link tables this entity owns, qualified and quoted.
    let ownedLinkTables: [String]
    let namespace: String

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
        self.keySequence = "\(namespace).\(PostgresSQL.quote("osd_keys_\(entity.root.name)"))"
        let columns = entity.fields.map { $0.hasColumn ? PostgresSQL.quote($0.name) : nil }
        self.columns = columns
        let stored = shape.storedProperties
        let names = stored.map { columns[$0]! }
        let parameters = stored.indices.map { "$\($0 + 1)" }
        let casts = ["$1::int8"] + stored.enumerated().map { offset, property in
            "$\(offset + 2)::\(entity.fields[property].storage.map(PostgresSQL.parameterType) ?? "text")"
        }
        self.preparedInsertSQL = "INSERT INTO \(table) (\(([PostgresSQL.primaryKey] + names).joined(separator: ", "))) VALUES (\(casts.joined(separator: ", ")))"
        self.insertSQL = stored.isEmpty
            ? "INSERT INTO \(table) DEFAULT VALUES RETURNING \(PostgresSQL.primaryKey)"
            : "INSERT INTO \(table) (\(names.joined(separator: ", "))) VALUES (\(parameters.joined(separator: ", "))) RETURNING \(PostgresSQL.primaryKey)"
        let selected = ["t0.\(PostgresSQL.primaryKey)"] + shape.selectedProperties.map { columns[$0].map { "t0.\($0)" } ?? "NULL" }
        self.selectList = selected.joined(separator: ", ")
        self.selectPrefix = "SELECT \(selectList) FROM \(table) AS t0"
        let indexByName = Dictionary(entity.fields.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        let constraints = entity.uniquenessConstraints.map { $0.compactMap { indexByName[$0] } }.filter { !$0.isEmpty }
        self.uniqueKeyAttributes = constraints.flatMap { $0 }
        var number = 0
        // Text by its NFC form, as the unique index holds it (``declaredIndexes``).
        // A NaN matches no row, as the unique index leaves NaN rows out (``uniqueIndexCondition``).
        let terms = constraints.map { constraint -> String in
            var matches: [String] = constraint.map { property in
                number += 1
                let column = columns[property] ?? "NULL"
                return entity.fields[property].storage == .text
                    ? "\(PostgresSQL.swiftText(column)) = \(PostgresSQL.swiftText("$\(number)"))"
                    : "\(column) = $\(number)"
            }
            if let condition = Self.uniqueIndexCondition(constraint.map { entity.fields[$0] }) { matches.append(condition) }
            return "(" + matches.joined(separator: " AND ") + ")"
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
        let types = ["int8"] + properties.map { entity.fields[$0].storage.map(PostgresSQL.parameterType) ?? "text" }
        let tuples = (0..<rows).map { row in
            "(" + types.enumerated().map { "$\(row * width + $0.offset + 1)::\($0.element)" }.joined(separator: ", ") + ")"
        }
        let names = ["k"] + properties.indices.map { "p\($0)" }
        let assignments = properties.enumerated().map { "\(columns[$1] ?? "NULL") = v.p\($0)" }
        return "UPDATE \(table) AS t SET \(assignments.joined(separator: ", ")) FROM (VALUES \(tuples.joined(separator: ", "))) AS v(\(names.joined(separator: ", "))) WHERE t.\(PostgresSQL.primaryKey) = v.k"
    }

    /// How many rows one batched `INSERT` holds: a thousand, within PostgreSQL's 65,535 parameters.
    var batchRows: Int { min(1_000, PostgresSQL.maximumParameters / (shape.storedProperties.count + 1)) }

    /// The column of a property that has one.
    func column(_ property: Int) -> String { columns[property] ?? "NULL" }

    /// The qualified link table of a relationship's pairs.
    func linkTable(_ name: LinkName) -> String { Self.linkTable(name, namespace: namespace) }

    /// A link table of the quoted `namespace`, qualified and quoted.
    static func linkTable(_ name: LinkName, namespace: String) -> String { "\(namespace).\(PostgresSQL.quote(name.table))" }

    /// `SELECT` of the primary key and the given properties.
    func selectPrefix(attributes: [Int]) -> String {
        let selected = ["t0.\(PostgresSQL.primaryKey)"] + attributes.map { columns[$0].map { "t0.\($0)" } ?? "NULL" }
        return "SELECT \(selected.joined(separator: ", ")) FROM \(table) AS t0"
    }

    /// The statements that create the table, its indexes and the link tables it owns (the key
    /// sequence is created once per hierarchy, by the store).
    var createStatements: [String] {
        var definitions = ["\(PostgresSQL.primaryKey) BIGINT PRIMARY KEY DEFAULT nextval('\(keySequence.replacingOccurrences(of: "'", with: "''"))')"]
        for index in shape.storedProperties {
            let field = entity.fields[index]
            guard let storage = field.storage else { continue }
            definitions.append("\(columns[index]!) \(PostgresSQL.columnType(storage))\(field.isOptional ? "" : " NOT NULL")")
        }
        return ["CREATE TABLE \(table) (\(definitions.joined(separator: ", ")))"] + indexStatements + ownedLinks.flatMap(linkTableStatements)
    }

    /// One of the entity's `#Unique` or `#Index` indexes.
    struct DeclaredIndex {
        /// The index's name as PostgreSQL lists it (`pg_indexes.indexname`).
        let rawName: String
        /// The index's name, quoted.
        let name: String
        let isUnique: Bool
        /// Whether it covers a text attribute.
        let coversText: Bool
        /// Whether it covers a floating-point attribute.
        let coversFloatingPoint: Bool
        /// The statement that creates it.
        let createStatement: String
    }

    /// The entity's unique indexes (`#Unique`, `.unique`) and regular ones (`#Index`), in that
    /// order. Text attributes are indexed by their NFC form, as queries compare them
    /// (``PostgresSQL/swiftText(_:)``): unique text is unique as Swift's `==` tells strings apart,
    /// and comparisons and sorts of text can use the index.
    var declaredIndexes: [DeclaredIndex] {
        let storage = Dictionary(entity.fields.map { ($0.name, $0.storage) }, uniquingKeysWith: { first, _ in first })
        func declared(_ names: [String], name: String, isUnique: Bool) -> DeclaredIndex {
            let coversText = names.contains { storage[$0] == .text }
            // Text as the queries write it, so that the planner matches the index to them.
            let expressions = names.map { storage[$0] == .text ? "(\(PostgresSQL.swiftText(PostgresSQL.quote($0))))" : PostgresSQL.quote($0) }
            let rawName = Self.indexName(name)
            let quoted = PostgresSQL.quote(rawName)
            let fields = names.compactMap { name in entity.fields.first { $0.name == name } }
            let condition = isUnique ? Self.uniqueIndexCondition(fields).map { " WHERE \($0)" } ?? "" : ""
            return DeclaredIndex(
                rawName: rawName, name: quoted, isUnique: isUnique, coversText: coversText,
                coversFloatingPoint: fields.contains { $0.storage == .real },
                createStatement: "CREATE \(isUnique ? "UNIQUE " : "")INDEX \(quoted) ON \(table) (\(expressions.joined(separator: ", ")))\(condition)")
        }
        return entity.uniquenessConstraints.enumerated().map { declared($1, name: "osd_unique_\(entity.name)_\($0)", isUnique: true) }
            + entity.indices.enumerated().map { declared($1, name: "osd_index_\(entity.name)_\($0)", isUnique: false) }
    }

    /// The rows a unique index holds, when not all: those without a NaN in a floating-point
    /// attribute of the constraint. NaN equals nothing in Swift, not even itself (PostgreSQL calls
    /// two NaNs equal), so a model with one never matches another, as a `nil` does not.
    static func uniqueIndexCondition(_ fields: [Schema.Entity.Field]) -> String? {
        let terms = fields.filter { $0.storage == .real }.map { "\(PostgresSQL.quote($0.name)) <> 'NaN'::float8" }
        return terms.isEmpty ? nil : terms.joined(separator: " AND ")
    }

    /// The statements that create the entity's unique and regular indexes, and one index per
    /// foreign key (deletes and to-many loads look rows up by it).
    var indexStatements: [String] {
        var statements = declaredIndexes.map(\.createStatement)
        let prefix = entity.name
        for (property, link) in entity.links.sorted(by: { $0.key < $1.key }) where link.storage == .foreignKey {
            statements.append("CREATE INDEX IF NOT EXISTS \(PostgresSQL.quote(Self.indexName("osd_fk_\(prefix)_\(link.name)"))) ON \(table) (\(columns[property]!))")
        }
        return statements
    }

    /// The statements that create one link table: (owner, target) pairs, indexed both ways.
    func linkTableStatements(_ name: LinkName) -> [String] {
        let link = linkTable(name)
        return [
            "CREATE TABLE \(link) (owner BIGINT NOT NULL, target BIGINT NOT NULL, PRIMARY KEY (owner, target))",
            "CREATE INDEX \(PostgresSQL.quote(Self.indexName(name.table + "_target"))) ON \(link) (target, owner)",
        ]
    }

    /// An index name within PostgreSQL's 63-byte limit, unique by a hash suffix when shortened.
    static func indexName(_ name: String) -> String {
        guard name.utf8.count > 63 else { return name }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let suffix = "_" + String(hash, radix: 16)
        var prefix = ""
        for character in name {
            if prefix.utf8.count + String(character).utf8.count + suffix.utf8.count > 63 { break }
            prefix.append(character)
        }
        return prefix + suffix
    }
}
