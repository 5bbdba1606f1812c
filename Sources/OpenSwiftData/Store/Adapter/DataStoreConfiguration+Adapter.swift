extension DataStoreConfiguration {
    /// Opens the configuration's store behind an adapter, giving the configuration the
    /// container's schema when it names none.
    func openCustomStore(schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?) throws -> any StoreBackend {
        var configuration = self
        if configuration.schema == nil { configuration.schema = schema }
        try configuration.validate()
        return DataStoreAdapter(store: try Store(configuration, migrationPlan: migrationPlan), schema: schema)
    }
}
