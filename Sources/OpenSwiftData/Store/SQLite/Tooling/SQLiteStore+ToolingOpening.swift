/// The SQLite store opens its file for the tools on a connection of its own.
extension SQLiteStore: ToolingOpeningStore {
    func openTooling() throws -> any StoreTooling {
        guard path != ":memory:" else {
            throw SwiftDataError(.storeFailure, reason: "A store kept in memory has no file for another connection to open.")
        }
        return try StoreFile(path: path, writable: true)
    }
}
