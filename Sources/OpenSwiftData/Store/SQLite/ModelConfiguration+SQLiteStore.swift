extension SQLiteStore: StoreBackend {
    /// SQLite evaluates every expression the translator produces (Swift's text semantics through
    /// functions registered on each connection).
    func canEvaluate(_ expression: QueryExpression) -> Bool { true }
    /// SQLite orders by every sort key the translator produces.
    func canSort(by sort: [QuerySort]) -> Bool { true }
    /// SQLite applies delete rules in SQL (see `SQLiteStore+DeleteRules.swift`).
    var appliesDeleteRules: Bool { true }
}

extension ModelConfiguration {
    /// Opens (or creates) the store this configuration describes: an SQLite file at its URL, or
    /// an in-memory SQLite database.
    func makeStore(schema: Schema) throws -> any StoreBackend {
        try SQLiteStore(url: isStoredInMemoryOnly ? nil : url, schema: schema, allowsSave: allowsSave)
    }
}
