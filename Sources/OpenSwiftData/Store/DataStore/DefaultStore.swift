/// The store a ``ModelConfiguration`` describes: OpenSwiftData's SQLite store.
///
/// Containers open the SQLite store directly, through a typed path made for speed rather than
/// through snapshots; `DefaultStore` exists so that ``ModelConfiguration`` is a
/// ``DataStoreConfiguration`` as in SwiftData. Its snapshot methods are not a way into the store:
/// use a ``ModelContext``.
public final class DefaultStore: DataStore {
    /// The configuration of the store.
    public typealias Configuration = ModelConfiguration
    /// The snapshots of the built-in store.
    public typealias Snapshot = DefaultSnapshot

    /// The configuration that describes the store.
    public let configuration: ModelConfiguration
    /// The identifier of the store object.
    public let identifier: String
    /// The schema of the store's models.
    public let schema: Schema
    /// The name of the configuration.
    public var name: String { configuration.name }

    /// Creates the store object for a configuration; the container opens the file itself.
    public init(_ configuration: ModelConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
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

extension ModelConfiguration: DataStoreConfiguration {
    /// The store a model configuration describes.
    public typealias Store = DefaultStore
}
