/// The state of the context that sends a request to a data store.
public struct EditingState: Identifiable, Sendable {
    /// A value that identifies the context.
    public let id: UUID
    /// The author of the context's changes, the context's ``ModelContext/author``.
    public var author: String?

    init(id: UUID = UUID(), author: String? = nil) {
        self.id = id
        self.author = author
    }
}

/// A request to fetch the snapshots of the models that match a fetch descriptor.
public struct DataStoreFetchRequest<T: PersistentModel>: Sendable {
    /// The criteria of the fetch: predicate, sort, page. The context filters and sorts what the
    /// store returns again in Swift, so a store may return a superset in any order; it is asked
    /// for no page (`fetchLimit` and `fetchOffset` are `nil`) unless its results are final.
    public let descriptor: FetchDescriptor<T>
    /// The state of the context that sends the request.
    public let editingState: EditingState

    init(descriptor: FetchDescriptor<T>, editingState: EditingState) {
        self.descriptor = descriptor
        self.editingState = editingState
    }
}

/// The snapshots a data store returns for a fetch request.
public struct DataStoreFetchResult<ModelType: PersistentModel, SnapshotType: DataStoreSnapshot>: Sendable {
    /// The descriptor of the request.
    public let descriptor: FetchDescriptor<ModelType>
    /// The snapshots of the models that match, in order.
    public let fetchedSnapshots: [SnapshotType]
    /// Snapshots of related models the store read along, by identifier; the context keeps them so
    /// that relationships resolve without asking again.
    public let relatedSnapshots: [PersistentIdentifier: SnapshotType]

    /// Creates a fetch result.
    public init(descriptor: FetchDescriptor<ModelType>, fetchedSnapshots: [SnapshotType], relatedSnapshots: [PersistentIdentifier: SnapshotType] = [:]) {
        self.descriptor = descriptor
        self.fetchedSnapshots = fetchedSnapshots
        self.relatedSnapshots = relatedSnapshots
    }
}

/// The changes of one save, as snapshots: the store writes all of them or none.
public struct DataStoreSaveChangesRequest<SnapshotType: DataStoreSnapshot>: Sendable {
    /// The state of the context that saves.
    public let editingState: EditingState
    /// Snapshots of the new models, with temporary identifiers. Their relationships to other new
    /// models hold those models' temporary identifiers too: pass the identifiers you assign to
    /// ``DataStoreSnapshot/copy(persistentIdentifier:remappedIdentifiers:)`` so that they are
    /// replaced.
    public let inserted: [SnapshotType]
    /// Snapshots of the changed models, with every persisted value.
    public let updated: [SnapshotType]
    /// Snapshots of the deleted models.
    public let deleted: [SnapshotType]

    init(editingState: EditingState, inserted: [SnapshotType], updated: [SnapshotType], deleted: [SnapshotType]) {
        self.editingState = editingState
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }
}

/// What a data store reports after a save: the permanent identifiers of the inserted models.
public final class DataStoreSaveChangesResult<T: DataStoreSnapshot>: Sendable {
    /// The identifier of the store that saved.
    public let storeIdentifier: String
    /// The permanent identifier of each inserted model, by its temporary identifier.
    public let remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]
    /// Snapshots the store changed while saving (for example, values it computed), by identifier;
    /// the saving context's models take their values.
    public let snapshotsToReregister: [PersistentIdentifier: T]
    /// The history token of the save, when the store records history.
    public let historyToken: (any HistoryToken)?

    /// Creates a save result.
    public init(for storeIdentifier: String, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier] = [:], snapshotsToReregister: [PersistentIdentifier: T] = [:]) {
        self.storeIdentifier = storeIdentifier
        self.remappedIdentifiers = remappedIdentifiers
        self.snapshotsToReregister = snapshotsToReregister
        self.historyToken = nil
    }

    /// Creates a save result with the history token of the save.
    public init(for storeIdentifier: String, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier] = [:], snapshotsToReregister: [PersistentIdentifier: T] = [:], historyToken: (any HistoryToken)?) {
        self.storeIdentifier = storeIdentifier
        self.remappedIdentifiers = remappedIdentifiers
        self.snapshotsToReregister = snapshotsToReregister
        self.historyToken = historyToken
    }
}

/// A request to delete the models that match a predicate, sent to stores that adopt
/// ``DataStoreBatching``.
public struct DataStoreBatchDeleteRequest<T: PersistentModel>: Sendable {
    /// The state of the context that deletes.
    public let editingState: EditingState
    /// Whether models of subclasses of `T` that match are deleted too.
    public let includeSubclasses: Bool
    /// The models to delete, or `nil` for every model of the type.
    public let predicate: Predicate<T>?

    init(editingState: EditingState, includeSubclasses: Bool, predicate: Predicate<T>?) {
        self.editingState = editingState
        self.includeSubclasses = includeSubclasses
        self.predicate = predicate
    }
}
