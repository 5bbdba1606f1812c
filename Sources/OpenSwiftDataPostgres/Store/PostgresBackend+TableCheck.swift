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
    /// read its values as the type it wrote, and get them wrong. `varchar` holds text as `text`
    /// does, so it passes.
    static func checkColumnTypes(_ tables: [String: PostgresTable], location: PostgresLocation, on session: PostgresSession) throws {
        var bindings = PostgresBindings()
        bindings.append(location.namespace)
        let sql = "SELECT table_name::text, column_name::text, data_type::text FROM information_schema.columns WHERE table_schema = $1"
        var types: [String: [String: String]] = [:]
        for row in try session.query(sql, bindings).map(PostgresRowReader.init) {
            types[row._string(0), default: [:]][row._string(1)] = row._string(2)
        }
        var changed: [String] = []
        for table in tables.values.sorted(by: { $0.entity.name < $1.entity.name }) {
            for field in table.entity.fields {
                guard let storage = field.storage, let found = types[table.entity.name]?[field.name] else { continue }
                let readable = readableColumnTypes(storage)
                if !readable.contains(found) {
                    changed.append("\(table.entity.name).\(field.name) (\(found), where the store writes \(readable[0]))")
                }
            }
        }
        guard changed.isEmpty else {
            throw SwiftDataError(.storeIsCorrupt, reason: "PostgreSQL \(location.displayName): another program changed the type of the column of \(changed.joined(separator: ", ")). The store would read those values wrong, so it reads none; change the columns back, or migrate the models to the new types.")
        }
    }

    /// The column types (as `information_schema.columns.data_type` names them) whose values the
    /// store reads as `storage`'s: the one it creates first.
    private static func readableColumnTypes(_ storage: StorageClass) -> [String] {
        switch storage {
        case .integer, .unsignedInteger: ["bigint"]
        case .real, .date: ["double precision"]
        case .text, .json: ["text", "character varying"]
        case .blob, .uuid, .decimal: ["bytea"]
        }
    }
}
