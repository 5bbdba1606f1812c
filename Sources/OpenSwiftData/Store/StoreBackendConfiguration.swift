/// A configuration of a store that OpenSwiftData ships outside its core module, such as the
/// PostgreSQL store: the container opens its ``StoreBackend`` directly, through the typed path of
/// the built-in store, rather than through ``DataStore`` snapshots.
package protocol StoreBackendConfiguration: DataStoreConfiguration {
    /// Whether contexts may save to the store.
    var allowsSave: Bool { get }

    /// Opens (or creates) the store this configuration describes.
    ///
    /// - Parameters:
    ///   - schema: The models the store holds: the configuration's schema, or the container's.
    ///   - migrationPlan: The container's migration plan, if it has one.
    func openBackend(schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?) throws -> any StoreBackend
}
