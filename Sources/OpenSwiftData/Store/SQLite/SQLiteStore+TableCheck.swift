/// Opening a store whose tables another program removed: refused with the tables named, instead
/// of an open container whose every fetch of the model fails.
extension SQLiteStore {
    /// Throws ``SwiftDataError/storeIsCorrupt`` naming the models whose tables, and the link
    /// tables, the file lacks.
    static func checkTablesExist(_ connection: SQLiteConnection, layouts: [String: TableLayout], path: String) throws {
        var present: Set<String> = []
        let statement = try connection.uncachedStatement("SELECT name FROM sqlite_master WHERE type = 'table'")
        while try statement.step() { present.insert(statement._string(0)) }
        var missing: [String] = []
        for layout in layouts.values.sorted(by: { $0.entity.name < $1.entity.name }) {
            // A model's table is named after it.
            if !present.contains(layout.entity.name) { missing.append("the table of the model \(layout.entity.name)") }
            for link in layout.ownedLinkTables where !present.contains(link) {
                missing.append("the link table \(link) of \(layout.entity.name)")
            }
        }
        guard missing.isEmpty else {
            throw SwiftDataError(.storeIsCorrupt, reason: "The store at \(path) lacks \(missing.joined(separator: ", ")): another program removed what the store records. The file was not changed; restore it from a backup (`osd verify` lists what is missing).")
        }
    }
}
