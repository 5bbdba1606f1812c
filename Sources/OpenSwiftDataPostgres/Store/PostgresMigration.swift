import OpenSwiftData
import PostgresNIO

/// The changes PostgreSQL makes on its own to bring a namespace from its recorded schema to the
/// models' schema, as SwiftData's lightweight migration does: new models, new optional properties
/// or properties with a declared initial value, removed properties and models, renames declared
/// with `@Attribute(originalName:)`, optional properties made required when no row holds `nil`,
/// new indexes and uniqueness constraints, new and removed many-to-many relationships.
///
/// PostgreSQL changes tables in place and in a transaction: the steps run in the transaction that
/// opens the store and records the new schema, so a failure (duplicates under a new uniqueness
/// constraint, say) leaves the namespace as it was.
struct PostgresMigration {
    /// One statement, with the parameters of a declared initial value.
    struct Step {
        var sql: String
        var bindings = PostgresBindings()
    }

    private(set) var steps: [Step] = []

    /// Plans the migration, or throws ``SwiftDataError/schemaMismatch`` naming every change that
    /// needs a custom migration stage. `rowsLacking(table, column)` counts the rows of a stored
    /// table whose `column` is NULL, or all its rows when `column` is `nil`.
    init(
        from stored: StoredSchema, to tables: [String: PostgresTable], namespace: String, place: String,
        rowsLacking: (_ table: String, _ column: String?) throws -> Int64
    ) throws {
        let storedEntities = Dictionary(stored.entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var problems: [String] = []
        for sequence in Set(tables.values.map(\.keySequence)).sorted() {
            steps.append(Step(sql: "CREATE SEQUENCE IF NOT EXISTS \(sequence)"))
        }
        for table in tables.values.sorted(by: { $0.table < $1.table }) {
            let entity = table.entity
            guard let old = storedEntities[entity.name] else {
                steps += table.ddl.createStatements.map { Step(sql: $0) }
                continue
            }
            let oldAttributes = Dictionary(old.attributes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            var used: Set<String> = []
            for index in table.shape.storedProperties {
                let field = entity.fields[index]
                guard let storage = field.storage else { continue }
                let column = table.column(index)
                let source = oldAttributes[field.name] ?? oldAttributes[field.originalName]
                if let source {
                    used.insert(source.name)
                    guard source.storage == storage else {
                        problems.append("\(entity.name).\(field.name) changed type (stored as \(source.storage), now \(storage)): migrate it in a custom stage")
                        continue
                    }
                    if source.name != field.name {
                        steps.append(Step(sql: "ALTER TABLE \(table.table) RENAME COLUMN \(PostgresSQL.quote(source.name)) TO \(column)"))
                        if field.relationship != nil {
                            steps.append(Step(sql: "DROP INDEX IF EXISTS \(namespace).\(PostgresSQL.quote(PostgresTableDDL.indexName("osd_fk_\(entity.name)_\(source.name)")))"))
                        }
                    }
                    if source.isOptional && !field.isOptional {
                        if let fill = Self.declaredValue(entity, index) {
                            steps.append(Step(sql: "UPDATE \(table.table) SET \(column) = $1 WHERE \(column) IS NULL", bindings: fill))
                        } else {
                            let lacking = try rowsLacking(old.name, source.name)
                            guard lacking == 0 else {
                                problems.append("\(entity.name).\(field.name) is no longer optional, has no initial value, and \(lacking) row(s) hold nil: declare an initial value, or fill those rows in a custom stage's willMigrate")
                                continue
                            }
                        }
                        steps.append(Step(sql: "ALTER TABLE \(table.table) ALTER COLUMN \(column) SET NOT NULL"))
                    } else if !source.isOptional && field.isOptional {
                        steps.append(Step(sql: "ALTER TABLE \(table.table) ALTER COLUMN \(column) DROP NOT NULL"))
                    }
                } else if field.isOptional {
                    steps.append(Step(sql: "ALTER TABLE \(table.table) ADD COLUMN \(column) \(PostgresSQL.columnType(storage))"))
                } else if let fill = Self.declaredValue(entity, index) {
                    steps.append(Step(sql: "ALTER TABLE \(table.table) ADD COLUMN \(column) \(PostgresSQL.columnType(storage))"))
                    steps.append(Step(sql: "UPDATE \(table.table) SET \(column) = $1", bindings: fill))
                    steps.append(Step(sql: "ALTER TABLE \(table.table) ALTER COLUMN \(column) SET NOT NULL"))
                } else {
                    let lacking = try rowsLacking(old.name, nil)
                    guard lacking == 0 else {
                        problems.append("\(entity.name).\(field.name) is new, not optional and has no initial value, and \(lacking) row(s) would have none: declare one (var \(field.name) = …), make it optional, or delete those rows in a custom stage's willMigrate")
                        continue
                    }
                    steps.append(Step(sql: "ALTER TABLE \(table.table) ADD COLUMN \(column) \(PostgresSQL.columnType(storage)) NOT NULL"))
                }
            }
            for attribute in old.attributes where !used.contains(attribute.name) {
                steps.append(Step(sql: "ALTER TABLE \(table.table) DROP COLUMN \(PostgresSQL.quote(attribute.name))"))
            }
            // Indexes are recreated from the models: uniqueness constraints, `#Index`, foreign keys.
            for number in old.uniquenessConstraints.indices {
                steps.append(Step(sql: "DROP INDEX IF EXISTS \(namespace).\(PostgresSQL.quote(PostgresTableDDL.indexName("osd_unique_\(entity.name)_\(number)")))"))
            }
            for number in old.indices.indices {
                steps.append(Step(sql: "DROP INDEX IF EXISTS \(namespace).\(PostgresSQL.quote(PostgresTableDDL.indexName("osd_index_\(entity.name)_\(number)")))"))
            }
            steps += table.ddl.indexStatements.map { Step(sql: $0) }
        }
        for old in stored.entities where tables[old.name] == nil {
            steps.append(Step(sql: "DROP TABLE \(namespace).\(PostgresSQL.quote(old.name))"))
        }
        // Link tables: new ones are created (with a new entity they already were), removed ones
        // dropped; a relationship renamed with `@Relationship(originalName:)` keeps its pairs.
        let storedLinks = Set(stored.links ?? [])
        var currentLinks = Set<String>()
        for table in tables.values.sorted(by: { $0.table < $1.table }) {
            for name in table.ownedLinks {
                currentLinks.insert(name.table)
                guard storedEntities[table.entity.name] != nil, !storedLinks.contains(name.table) else { continue }
                let property = table.entity.fields.first { $0.name == name.property }
                let original = LinkName(entity: table.entity.name, property: property?.originalName ?? name.property).table
                if original != name.table, storedLinks.contains(original) {
                    currentLinks.insert(original)
                    steps.append(Step(sql: "ALTER TABLE \(namespace).\(PostgresSQL.quote(original)) RENAME TO \(PostgresSQL.quote(name.table))"))
                } else {
                    steps += table.ddl.linkTableStatements(name).map { Step(sql: $0) }
                }
            }
        }
        for link in storedLinks.subtracting(currentLinks).sorted() {
            steps.append(Step(sql: "DROP TABLE IF EXISTS \(namespace).\(PostgresSQL.quote(link))"))
        }
        guard problems.isEmpty else {
            throw SwiftDataError(.schemaMismatch, reason: "\(place) was written by different models, and these changes need a migration stage: \(problems.joined(separator: "; ")). Nothing was changed.")
        }
    }

    /// The declared initial value of an attribute as a parameter, or `nil` when it has none.
    private static func declaredValue(_ entity: Schema.Entity, _ index: Int) -> PostgresBindings? {
        let values = PostgresParameters(entity: entity)
        do {
            guard try entity.modelType._osdWriteDefault(property: index, to: values, at: Int32(index)) else { return nil }
        } catch {
            return nil
        }
        let bindings = values.bindings([index])
        if case .null = values.values[index] { return nil }
        return bindings
    }

    /// Runs the steps inside the caller's transaction.
    func run(on session: PostgresSession) throws {
        for step in steps { try session.query(step.sql, step.bindings) }
    }
}
