import OpenSwiftData

/// The PostgreSQL statements that create one entity's table, its indexes and the link tables it
/// owns in a namespace, from its ``TableDefinition``.
struct PostgresTableDDL: Sendable {
    let definition: TableDefinition
    /// The quoted namespace.
    let namespace: String
    /// The qualified, quoted table name.
    let table: String
    /// The sequence that hands out the keys of the entity's class hierarchy, qualified and quoted.
    let keySequence: String

    init(_ definition: TableDefinition, namespace: String) {
        self.definition = definition
        self.namespace = namespace
        table = "\(namespace).\(PostgresSQL.quote(definition.entity))"
        keySequence = "\(namespace).\(PostgresSQL.quote("osd_keys_\(definition.hierarchyRoot ?? definition.entity)"))"
    }

    /// The statements that create the table, its indexes and the link tables it owns (the key
    /// sequence is created once per hierarchy, by the store).
    var createStatements: [String] {
        let key = "\(PostgresSQL.primaryKey) BIGINT PRIMARY KEY DEFAULT nextval('\(keySequence.replacingOccurrences(of: "'", with: "''"))')"
        let definitions = [key] + definition.columns.map { column in
            "\(PostgresSQL.quote(column.name)) \(PostgresSQL.columnType(column.storage))\(column.isOptional ? "" : " NOT NULL")"
        }
        return ["CREATE TABLE \(table) (\(definitions.joined(separator: ", ")))"] + indexStatements
            + definition.ownedLinks.flatMap(linkTableStatements)
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

    /// The entity's unique indexes (`#Unique`, `.unique`) and regular ones (`#Index`, followed by
    /// the key), in that order. Text attributes are indexed by their NFC form, as queries compare them
    /// (``PostgresSQL/swiftText(_:)``): unique text is unique as Swift's `==` tells strings apart,
    /// and comparisons and sorts of text can use the index.
    var declaredIndexes: [DeclaredIndex] {
        func declared(_ names: [String], name: String, isUnique: Bool) -> DeclaredIndex {
            let columns = names.map { ($0, definition.storage(of: $0)) }
            let expressions = indexExpressions(names)
            let rawName = Self.indexName(name)
            let quoted = PostgresSQL.quote(rawName)
            let condition = isUnique ? Self.uniqueIndexCondition(columns).map { " WHERE \($0)" } ?? "" : ""
            // A regular index ends with the key, the tiebreaker of every sort: rows that share
            // the indexed values come in the order a fetch returns them, read forwards for an
            // ascending sort and backwards for a descending one (`QuerySort.keysDescend(after:)`),
            // so that the first rows of a large tie are read from the index alone.
            let entries = isUnique ? expressions : expressions + [PostgresSQL.primaryKey]
            return DeclaredIndex(
                rawName: rawName, name: quoted, isUnique: isUnique, coversText: columns.contains { $0.1 == .text },
                coversFloatingPoint: columns.contains { $0.1 == .real },
                createStatement: "CREATE \(isUnique ? "UNIQUE " : "")INDEX \(quoted) ON \(table) (\(entries.joined(separator: ", ")))\(condition)")
        }
        let entity = definition.entity
        return definition.uniquenessConstraints.enumerated().map { declared($1, name: "osd_unique_\(entity)_\($0)", isUnique: true) }
            + definition.indices.enumerated().map { declared($1, name: "osd_index_\(entity)_\($0)", isUnique: false) }
    }

    /// The entries of an index over the named columns: text as the queries write it
    /// (``PostgresSQL/swiftText(_:)``), so that the planner matches the index to them, and every
    /// other column as it is.
    private func indexExpressions(_ names: [String]) -> [String] {
        names.map { definition.storage(of: $0) == .text ? "(\(PostgresSQL.swiftText(PostgresSQL.quote($0))))" : PostgresSQL.quote($0) }
    }

    /// The conflict target (`ON CONFLICT …`) that names the entity's one unique index, as
    /// ``declaredIndexes`` creates it: its entries and, for a constraint over a floating-point
    /// attribute, the condition of the rows it holds. `nil` unless the entity has exactly one
    /// uniqueness constraint.
    var uniqueConflictTarget: String? {
        guard definition.uniquenessConstraints.count == 1, let names = definition.uniquenessConstraints.first, !names.isEmpty else { return nil }
        let condition = Self.uniqueIndexCondition(names.map { ($0, definition.storage(of: $0)) }).map { " WHERE \($0)" } ?? ""
        return "(\(indexExpressions(names).joined(separator: ", ")))\(condition)"
    }

    /// The rows a unique index holds, when not all: those without a NaN in a floating-point
    /// column of the constraint. NaN equals nothing in Swift, not even itself (PostgreSQL calls
    /// two NaNs equal), so a model with one never matches another, as a `nil` does not.
    static func uniqueIndexCondition(_ columns: [(name: String, storage: StorageClass?)]) -> String? {
        let terms = columns.filter { $0.storage == .real }.map { "\(PostgresSQL.quote($0.name)) <> 'NaN'::float8" }
        return terms.isEmpty ? nil : terms.joined(separator: " AND ")
    }

    /// The statements that create the entity's unique and regular indexes, and one index per
    /// foreign key (deletes and to-many loads look rows up by it).
    var indexStatements: [String] {
        declaredIndexes.map(\.createStatement) + definition.foreignKeys.map { name in
            "CREATE INDEX IF NOT EXISTS \(PostgresSQL.quote(Self.indexName("osd_fk_\(definition.entity)_\(name)"))) ON \(table) (\(PostgresSQL.quote(name)))"
        }
    }

    /// The statements that create one link table: (owner, target) pairs, indexed both ways.
    func linkTableStatements(_ name: LinkName) -> [String] {
        let link = PostgresTable.linkTable(name, namespace: namespace)
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
