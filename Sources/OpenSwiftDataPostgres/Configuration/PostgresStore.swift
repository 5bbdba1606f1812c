import Foundation
import OpenSwiftData

/// The store a ``PostgresStoreConfiguration`` describes: OpenSwiftData's PostgreSQL store.
///
/// Containers open the PostgreSQL store directly, through the same typed path as the built-in
/// SQLite store; `PostgresStore` exists so that ``PostgresStoreConfiguration`` is a
/// ``DataStoreConfiguration``. Its snapshot methods are not a way into the store: use a
/// ``ModelContext``.
public final class PostgresStore: DataStore {
    /// The configuration of the store.
    public typealias Configuration = PostgresStoreConfiguration
    /// The snapshots of the built-in stores.
    public typealias Snapshot = DefaultSnapshot

    /// The configuration that describes the store.
    public let configuration: PostgresStoreConfiguration
    /// The identifier of the store object.
    public let identifier: String
    /// The schema of the store's models.
    public let schema: Schema

    /// Creates the store object for a configuration; the container connects to the server itself.
    public init(_ configuration: PostgresStoreConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
        self.identifier = UUID().uuidString
        self.schema = configuration.schema ?? Schema([])
    }

    /// Throws ``DataStoreError/unsupportedFeature``: fetch through a ``ModelContext``.
    public func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        throw DataStoreError.unsupportedFeature
    }

    /// Throws ``DataStoreError/unsupportedFeature``: save through a ``ModelContext``.
    public func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        throw DataStoreError.unsupportedFeature
    }

    /// Throws ``DataStoreError/unsupportedFeature``: use ``ModelContainer/erase()``.
    public func erase() throws {
        throw DataStoreError.unsupportedFeature
    }
}
