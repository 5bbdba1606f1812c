/// An interface that enables OpenSwiftData to read and write model data without knowledge of the
/// underlying storage mechanism.
///
/// Write a custom store when your models live somewhere other than the built-in SQLite store: a
/// JSON file, a web service, another database. Pair it with a configuration type that names it,
/// and pass that configuration to a container:
///
/// ```swift
/// let configuration = JSONStoreConfiguration(name: "Trips", schema: schema, fileURL: url)
/// let container = try ModelContainer(for: schema, configurations: [configuration])
/// ```
///
/// A context hands the store snapshots of its models: every inserted, changed and deleted model of
/// a save in one ``DataStoreSaveChangesRequest``, and a ``DataStoreFetchRequest`` for each fetch.
/// The store may decline a fetch's predicate or sort by throwing
/// ``DataStoreError/preferInMemoryFilter`` or ``DataStoreError/preferInMemorySort``: the context
/// then asks again without it and filters or sorts in Swift, so results always match the predicate.
/// Errors the store throws reach the caller of `save()` or `fetch(_:)` unchanged, and a failed save
/// keeps the context's changes.
public protocol DataStore: AnyObject {
    /// The type of configuration that describes the store.
    associatedtype Configuration: DataStoreConfiguration where Configuration.Store == Self
    /// The type of snapshot the store reads and writes.
    associatedtype Snapshot: DataStoreSnapshot

    /// Creates the store for a configuration.
    ///
    /// - Parameters:
    ///   - configuration: The configuration that describes the store. Its `schema` is the
    ///     container's schema when the configuration names none.
    ///   - migrationPlan: The container's migration plan, if it has one.
    init(_ configuration: Configuration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws

    /// The configuration that describes the store.
    var configuration: Configuration { get }
    /// A string that uniquely identifies the store. It is part of the identifiers of its models.
    var identifier: String { get }
    /// The schema of the models the store holds.
    var schema: Schema { get }

    /// Returns the snapshots of the models that match a fetch request.
    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, Snapshot>
    /// Returns the number of models that match a fetch request.
    func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int
    /// Returns the identifiers of the models that match a fetch request.
    func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier]
    /// Writes the inserted, updated and deleted snapshots of one save, all or nothing, and returns
    /// the permanent identifiers it assigned to the inserted ones.
    func save(_ request: DataStoreSaveChangesRequest<Snapshot>) throws -> DataStoreSaveChangesResult<Snapshot>
    /// Deletes every model the store holds.
    func erase() throws
    /// Tells the store that a context with this editing state begins to use it.
    func initializeState(for editingState: EditingState)
    /// Tells the store that a context with this editing state no longer uses it.
    func invalidateState(for editingState: EditingState)
    /// Returns the snapshots the store keeps in memory for the given identifiers, if any.
    func cachedSnapshots(for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState) throws -> [PersistentIdentifier: Snapshot]
}

extension DataStore {
    /// Counts the snapshots that ``fetch(_:)`` returns.
    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        try fetch(request).fetchedSnapshots.count
    }

    /// Returns the identifiers of the snapshots that ``fetch(_:)`` returns.
    public func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try fetch(request).fetchedSnapshots.map(\.persistentIdentifier)
    }

    /// Deletes every model by saving the deletion of each model the store returns.
    public func erase() throws {
        var deleted: [Snapshot] = []
        for entity in schema.entities {
            deleted += try entity.modelType._osdFetchAll(from: self)
        }
        guard !deleted.isEmpty else { return }
        _ = try save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: [], updated: [], deleted: deleted))
    }

    /// Does nothing: the store keeps no per-context state.
    public func initializeState(for editingState: EditingState) {}

    /// Does nothing: the store keeps no per-context state.
    public func invalidateState(for editingState: EditingState) {}

    /// Returns no snapshots: the store caches none.
    public func cachedSnapshots(for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState) throws -> [PersistentIdentifier: Snapshot] {
        [:]
    }
}

extension PersistentModel {
    /// Every snapshot of this model's entity that a store returns for a fetch without predicate.
    static func _osdFetchAll<Store: DataStore>(from store: Store, editingState: EditingState = EditingState()) throws -> [Store.Snapshot] {
        try store.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<Self>(), editingState: editingState)).fetchedSnapshots
            .filter { $0.persistentIdentifier.entityName == _osdEntityName }
    }
}

/// A type that describes the configuration of a data store.
///
/// ``ModelConfiguration`` is the configuration of the built-in store. A custom store has its own,
/// which names the store type:
///
/// ```swift
/// struct JSONStoreConfiguration: DataStoreConfiguration {
///     typealias Store = JSONStore
///     var name: String
///     var schema: Schema?
///     var fileURL: URL
/// }
/// ```
public protocol DataStoreConfiguration: Hashable {
    /// The type of store the configuration describes.
    associatedtype Store: DataStore where Store.Configuration == Self
    /// The name of the configuration.
    var name: String { get }
    /// The models the store holds, or `nil` for all of the container's models.
    var schema: Schema? { get set }
    /// Throws an error when the configuration cannot describe a working store.
    func validate() throws
}

extension DataStoreConfiguration {
    /// Accepts the configuration as it is.
    public func validate() throws {}
}

/// An interface that enables a custom data store to delete models by predicate without the context
/// loading them first.
public protocol DataStoreBatching: DataStore {
    /// Deletes the models that match a request's predicate.
    func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws
}

/// Errors a custom data store throws to ask the context to do part of a request itself.
public enum DataStoreError: Error, Hashable, Sendable {
    /// The store cannot evaluate the request's predicate.
    case invalidPredicate
    /// The store prefers that the context filter the results in memory: the context fetches again
    /// without the predicate and evaluates it in Swift.
    case preferInMemoryFilter
    /// The store prefers that the context sort the results in memory: the context fetches again
    /// without the sort descriptors and sorts in Swift.
    case preferInMemorySort
    /// The store does not support the requested feature.
    case unsupportedFeature
}
