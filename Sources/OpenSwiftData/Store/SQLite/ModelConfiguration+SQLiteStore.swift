extension SQLiteStore: StoreBackend {}

extension ModelConfiguration {
    /// Opens (or creates) the store this configuration describes: an SQLite file at its URL, or
    /// an in-memory SQLite database.
    func makeStore(schema: Schema) throws -> any StoreBackend {
        try SQLiteStore(url: isStoredInMemoryOnly ? nil : url, schema: schema, allowsSave: allowsSave)
    }
}
