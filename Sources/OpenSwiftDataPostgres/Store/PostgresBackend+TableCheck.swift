import OpenSwiftData
import PostgresNIO

/// Opening a namespace whose tables another program removed, or whose columns it gave other
/// types: refused with the tables or properties named, instead of an open container whose every
/// fetch of the model fails, or reads values as a type they no longer have.
extension PostgresBackend {
    /// Throws ``SwiftDataError/storeIsCorrupt`` naming the models whose tables, and the link
    /// tables, the namespace lacks.
    static func checkTablesExist(_ tables: [String: PostgresTable], location: PostgresLocation, on session: PostgresSession) throws {
        var bindings = PostgresBindings()
        bindings.append(location.namespace)
        let present = Set(try session.query("SELECT tablename::text FROM pg_tables WHERE schemaname = $1", bindings).map { PostgresRowReader($0)._string(0) })
        var missing: [String] = []
        for table in tables.values.sorted(by: { $0.entity.name < $1.entity.name }) {
            // A model's table is named after it, as is each link table after its relationship.
            if !present.contains(table.entity.name) { missing.append("the table of the model \(table.entity.name)") }
            for link in table.ownedLinks where !present.contains(link.table) {
                missing.append("the link table \(link.table) of \(table.entity.name)")
            }
        }
        guard missing.isEmpty else {
            throw SwiftDataError(.storeIsCorrupt, reason: "PostgreSQL \(location.displayName) lacks \(missing.joined(separator: ", ")): another program removed what the store records. Nothing was changed; restore the tables from a backup (`osd verify` lists what is missing).")
        }
    }

    /// Throws ``SwiftDataError/storeIsCorrupt`` naming each property whose column another program
    /// gave a type the store does not read (`ALTER TABLE … ALTER COLUMN … TYPE`): the store would
    /// read its values as the type it wrote, and get them wrong
    /// (``PostgresTable/retypedColumn(_:holding:)``).
    static func checkColumnTypes(_ tables: [String: PostgresTable], location: PostgresLocation, on session: PostgresSession) throws {
        var bindings = PostgresBindings()
        bindings.append(location.namespace)
        let sql = """
            SELECT c.relname::text, a.attname::text, a.atttypid::int8 FROM pg_attribute AS a
            JOIN pg_class AS c ON c.oid = a.attrelid JOIN pg_namespace AS n ON n.oid = c.relnamespace
            WHERE n.nspname = $1 AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
            """
        var types: [String: [String: PostgresDataType]] = [:]
        for row in try session.query(sql, bindings).map(PostgresRowReader.init) {
            types[row._string(0), default: [:]][row._string(1)] = PostgresDataType(UInt32(truncatingIfNeeded: row._int64(2)))
        }
        var retyped: [String] = []
        for table in tables.values.sorted(by: { $0.entity.name < $1.entity.name }) {
            for (property, field) in table.entity.fields.enumerated() {
                guard let found = types[table.entity.name]?[field.name], let changed = table.retypedColumn(property, holding: found) else { continue }
                retyped.append(changed)
            }
        }
        guard retyped.isEmpty else { throw PostgresTable.retyped(retyped, location: location) }
    }
}
