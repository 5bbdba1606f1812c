import OpenSwiftData
import PostgresNIO

/// Opening a namespace whose tables another program removed: refused with the tables named,
/// instead of an open container whose every fetch of the model fails.
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
}
