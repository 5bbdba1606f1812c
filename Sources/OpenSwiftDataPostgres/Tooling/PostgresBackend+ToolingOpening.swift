import OpenSwiftData

/// The PostgreSQL store opens its namespace for the tools on a connection of its own.
extension PostgresBackend: ToolingOpeningStore {
    package func openTooling() throws -> any StoreTooling {
        try PostgresStoreAccess(location: location, writable: true)
    }
}
