/// The changes SQLite can make on its own to bring a store from its recorded schema to the models'
/// schema, as SwiftData's lightweight migration does: new models, new optional properties or
/// properties with a declared initial value, removed properties and models, renames declared with
/// `@Attribute(originalName:)`, new indexes and uniqueness constraints.
///
/// A table whose changes are only renames, added columns and indexes is altered in place; any other
/// changed table is rebuilt: a new table with the new layout, filled from the old one in one
/// `INSERT … SELECT`, then put in the old one's place. Everything runs in the caller's transaction,
/// so a failure (for example duplicates under a new uniqueness constraint) leaves the store as it was.
struct LightweightMigration {
    /// One step: SQL, and for an `INSERT … SELECT` the declared initial values its parameters take.
    struct Step {
        var sql: String
        var defaults: [(model: any PersistentModel.Type, property: Int)] = []
    }

    private(set) var steps: [Step] = []

    /// Plans the migration, or throws ``SwiftDataError/schemaMismatch`` naming every change that
    /// needs a custom migration stage.
    ///
    /// A required property without an initial value is decided from the data: a new one is fine
    /// when its table holds no row, and one that was optional when no row holds `nil` (a custom
    /// stage's `willMigrate` may have deleted the rows or filled them). `rowsLacking(table, column)`
    /// counts the rows that would have no value: those whose `column` is NULL, or all rows when
    /// `column` is `nil`.
    init(
        from stored: StoredSchema, to layouts: [String: TableLayout], path: String,
        rowsLacking: (_ table: String, _ column: String?) throws -> Int64
    ) throws {
        let storedEntities = Dictionary(stored.entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var problems: [String] = []
        let declared = DeclaredDefaults()
        func hasDefault(_ entity: Schema.Entity, _ index: Int) -> Bool { declared.value(entity, index) != nil }
        for layout in layouts.values.sorted(by: { $0.table < $1.table }) {
            let entity = layout.entity
            guard let old = storedEntities[entity.name] else {
                steps += layout.ddl.createStatements.map { Step(sql: $0) }
                continue
            }
            let oldAttributes = Dictionary(old.attributes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            var expressions: [String] = []
            var defaults: [(model: any PersistentModel.Type, property: Int)] = []
            var changed = old.attributes.count != layout.columnProperties.count
                || old.uniquenessConstraints != entity.uniquenessConstraints || old.indices != entity.indices
            for (index, attribute) in layout.storedColumns {
                let source = oldAttributes[attribute.name] ?? oldAttributes[attribute.originalName]
                if source?.name != attribute.name { changed = true }
                if let source {
                    guard source.storage == attribute.storage else {
                        problems.append("\(entity.name).\(attribute.name) changed type (stored as \(source.storage), now \(attribute.storage!)): migrate it in a custom stage")
                        continue
                    }
                    let column = SQL.quote(source.name)
                    if source.isOptional && !attribute.isOptional {
                        changed = true
                        guard hasDefault(entity, index) else {
                            let lacking = try rowsLacking(old.name, source.name)
                            if lacking == 0 {
                                expressions.append(column)
                                continue
                            }
                            problems.append("\(entity.name).\(attribute.name) is no longer optional, has no initial value, and \(lacking) row(s) hold nil: declare an initial value, or fill those rows in a custom stage's willMigrate")
                            continue
                        }
                        expressions.append("coalesce(\(column), ?)")
                        defaults.append((entity.modelType, index))
                    } else {
                        if source.isOptional != attribute.isOptional { changed = true }
                        expressions.append(column)
                    }
                } else if attribute.isOptional {
                    expressions.append("NULL")
                } else if hasDefault(entity, index) {
                    expressions.append("?")
                    defaults.append((entity.modelType, index))
                } else {
                    let lacking = try rowsLacking(old.name, nil)
                    if lacking == 0 {
                        // No row needs a value: the column is only ever filled by new saves.
                        expressions.append("NULL")
                        continue
                    }
                    problems.append("\(entity.name).\(attribute.name) is new, not optional and has no initial value, and \(lacking) row(s) would have none: declare one (var \(attribute.name) = …), make it optional, or delete those rows in a custom stage's willMigrate")
                }
            }
            guard changed, problems.isEmpty else { continue }
            if let alterations = Self.inPlaceSteps(layout, from: old, defaults: declared) {
                steps += alterations
                continue
            }
            let temporary = SQL.quote("osd_migrating_\(entity.name)")
            let targetColumns = ([TableLayout.primaryKey] + layout.columnProperties.map { layout.column($0) }).joined(separator: ", ")
            steps.append(Step(sql: layout.ddl.createTableSQL(named: temporary)))
            steps.append(Step(
                sql: "INSERT INTO \(temporary) (\(targetColumns)) SELECT \(([TableLayout.primaryKey] + expressions).joined(separator: ", ")) FROM \(SQL.quote(old.name))",
                defaults: defaults))
            steps.append(Step(sql: "DROP TABLE \(SQL.quote(old.name))"))
            steps.append(Step(sql: "ALTER TABLE \(temporary) RENAME TO \(layout.table)"))
            steps += layout.ddl.indexStatements.map { Step(sql: $0) }
        }
        for old in stored.entities where layouts[old.name] == nil {
            steps.append(Step(sql: "DROP TABLE \(SQL.quote(old.name))"))
        }
        // Link tables of many-to-many and one-way to-many relationships: new ones are created
        // (with a new entity they already were), removed ones dropped.
        // A relationship renamed with `@Relationship(originalName:)` keeps its link table, renamed.
        let storedLinks = Set(stored.links ?? [])
        var currentLinks = Set<String>()
        for layout in layouts.values.sorted(by: { $0.table < $1.table }) where storedEntities[layout.entity.name] != nil {
            for (property, link) in layout.links.sorted(by: { $0.key < $1.key }) {
                guard case .link(let name, true) = link.storage else { continue }
                let table = name.table
                currentLinks.insert(table)
                guard !storedLinks.contains(table) else { continue }
                let original = LinkName(entity: layout.entity.name, property: layout.entity.fields[property].originalName).table
                if original != table, storedLinks.contains(original) {
                    currentLinks.insert(original)
                    steps.append(Step(sql: "ALTER TABLE \(SQL.quote(original)) RENAME TO \(SQL.quote(table))"))
                    steps.append(Step(sql: "DROP INDEX IF EXISTS \(SQL.quote(original + "_target"))"))
                    steps += SQLiteTableDDL.linkTableStatements(for: table).dropFirst().map { Step(sql: $0) }
                } else {
                    steps += SQLiteTableDDL.linkTableStatements(for: table).map { Step(sql: $0) }
                }
            }
        }
        for layout in layouts.values where storedEntities[layout.entity.name] == nil {
            currentLinks.formUnion(layout.ownedLinkTables)
        }
        for table in storedLinks.subtracting(currentLinks).sorted() {
            steps.append(Step(sql: "DROP TABLE \(SQL.quote(table))"))
        }
        // A class hierarchy's shared keys start after every key its stored tables already use
        // (a base class that gains subclasses keeps its rows and their keys).
        var seeded = Set<String>()
        for layout in layouts.values.sorted(by: { $0.table < $1.table }) {
            guard let keys = layout.sharedKeysTable, seeded.insert(keys).inserted else { continue }
            let stored = layout.entity.root.concreteEntities.filter { storedEntities[$0.name] != nil }
            guard !stored.isEmpty else { continue }
            let maxima = stored.map { "SELECT max(\(TableLayout.primaryKey)) AS m FROM \(SQL.quote($0.name))" }.joined(separator: " UNION ALL ")
            steps.append(Step(sql: "CREATE TABLE IF NOT EXISTS \(keys) (k INTEGER PRIMARY KEY AUTOINCREMENT)"))
            steps.append(Step(sql: "INSERT INTO \(keys) (k) SELECT max(m) FROM (\(maxima)) WHERE (SELECT max(m) FROM (\(maxima))) IS NOT NULL"))
            steps.append(Step(sql: "DELETE FROM \(keys)"))
        }
        guard problems.isEmpty else {
            throw SwiftDataError(.schemaMismatch, reason: "The store at \(path) was written by different models, and these changes need a migration stage: \(problems.joined(separator: "; ")). The file was not changed.")
        }
    }

    /// A stored value as an SQL literal, for `ADD COLUMN … DEFAULT`; `nil` when it has none.
    private static func literal(_ value: StoredValue) -> String? {
        switch value {
        case .null: "NULL"
        case .integer(let number): "\(number)"
        case .real(let number): number.isFinite ? "\(number)" : nil
        case .text(let text): SQL.literal(text)
        case .blob(let bytes): "X'" + bytes.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }

    /// The steps that change a table in place, when every change is a rename, an added column or an
    /// index: `ALTER TABLE` costs the same for ten rows as for a million, where a rebuild copies
    /// them all. `nil` when a change needs the rebuild.
    private static func inPlaceSteps(_ layout: TableLayout, from old: StoredSchema.Entity, defaults: DeclaredDefaults) -> [Step]? {
        let entity = layout.entity
        let oldAttributes = Dictionary(old.attributes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var steps: [Step] = []
        var used: Set<String> = []
        for (index, attribute) in layout.storedColumns {
            if let source = oldAttributes[attribute.name] ?? oldAttributes[attribute.originalName] {
                guard source.storage == attribute.storage, source.isOptional == attribute.isOptional else { return nil }
                used.insert(source.name)
                if source.name != attribute.name {
                    steps.append(Step(sql: "ALTER TABLE \(layout.table) RENAME COLUMN \(SQL.quote(source.name)) TO \(layout.column(index))"))
                }
            } else if attribute.isOptional {
                steps.append(Step(sql: "ALTER TABLE \(layout.table) ADD COLUMN \(layout.column(index)) \(SQL.columnType(attribute.storage!))"))
            } else {
                guard let value = defaults.value(entity, index), let literal = literal(value), value != .null else { return nil }
                steps.append(Step(sql: "ALTER TABLE \(layout.table) ADD COLUMN \(layout.column(index)) \(SQL.columnType(attribute.storage!)) NOT NULL DEFAULT \(literal)"))
            }
        }
        // A removed column needs the rebuild (dropping it would also drop what its indexes name).
        guard used.count == old.attributes.count else { return nil }
        // A renamed foreign key keeps its column; its index under the old name goes.
        for (_, field) in layout.storedColumns where field.relationship != nil && field.originalName != field.name {
            steps.append(Step(sql: "DROP INDEX IF EXISTS \(SQL.quote("osd_fk_\(entity.name)_\(field.originalName)"))"))
        }
        if old.uniquenessConstraints != entity.uniquenessConstraints || old.indices != entity.indices || !layout.links.isEmpty {
            for number in old.uniquenessConstraints.indices {
                steps.append(Step(sql: "DROP INDEX IF EXISTS \(SQL.quote("osd_unique_\(entity.name)_\(number)"))"))
            }
            for number in old.indices.indices {
                steps.append(Step(sql: "DROP INDEX IF EXISTS \(SQL.quote("osd_index_\(entity.name)_\(number)"))"))
            }
            steps += layout.ddl.indexStatements.map { Step(sql: $0) }
        }
        return steps
    }

    /// Runs the steps on `connection`, inside the caller's transaction.
    func run(on connection: SQLiteConnection) throws {
        for step in steps {
            guard !step.defaults.isEmpty else {
                try connection.execute(step.sql)
                continue
            }
            let statement = try connection.uncachedStatement(step.sql)
            for (parameter, item) in step.defaults.enumerated() {
                _ = try item.model._osdWriteDefault(property: item.property, to: statement, at: Int32(parameter))
            }
            try statement.run()
        }
    }
}

/// The stored forms of properties' declared initial values, read once each through one in-memory
/// SQLite statement (the generated writer binds the value, the statement reads it back).
private final class DeclaredDefaults {
    private let statement: SQLiteStatement?
    private var values: [String: StoredValue?] = [:]

    init() {
        statement = (try? SQLiteConnection(path: ":memory:", readOnly: false, create: true))
            .flatMap { try? $0.uncachedStatement("SELECT ?") }
    }

    /// The declared initial value of an entity's attribute, or `nil` if it has none.
    func value(_ entity: Schema.Entity, _ index: Int) -> StoredValue? {
        let key = "\(entity.name).\(index)"
        if let known = values[key] { return known }
        var result: StoredValue?
        if let statement {
            statement.reset()
            if (try? entity.modelType._osdWriteDefault(property: index, to: statement, at: 0)) == true,
               (try? statement.step()) == true {
                result = statement.value(0)
            }
            statement.reset()
        }
        values[key] = result
        return result
    }
}
