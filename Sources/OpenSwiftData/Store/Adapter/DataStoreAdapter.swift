import Foundation

/// Runs a custom ``DataStore`` behind the store seam: rows are read from the store's snapshots,
/// and a change set becomes one ``DataStoreSaveChangesRequest``.
///
/// The store gets each fetch's predicate and sort and may decline either (the adapter asks again
/// without it); the context evaluates both in Swift in any case, so results are always those of
/// `predicate.evaluate`. The adapter keeps the snapshots it last read, so that faults and
/// relationships resolve without asking the store for every model; every fetch refreshes them.
///
/// The store is called under one lock, and never while the context reads a row, so a model's
/// relationship resolved mid-fetch can call the adapter again.
final class DataStoreAdapter<Store: DataStore>: StoreBackend, DescriptorFetchingStore, HistoryProvidingStore, SnapshotSource, @unchecked Sendable {
    // @unchecked Sendable: `store`, `snapshots` and `remapped` are only used while `lock` is held.
    let store: Store
    let identifier: String
    /// The keys the store chose, held for as long as the adapter lives (see ``ExternalKeyTable``).
    let keyTable: ExternalKeyTable
    var isReadOnly: Bool { false }
    private let shapes: [String: RowShape]
    let entities: [Schema.Entity]
    private let lock = NSLock()
    /// The editing state of the adapter's own requests: loading faults and relationships, which
    /// no one context asks for.
    private let editingState = EditingState()
    /// The contexts' editing states the store was told of (``DataStore/initializeState(for:)``)
    /// and not yet told the end of.
    private var contextStates = Set<UUID>()
    /// The last snapshot read or written of each model, by key.
    private var snapshots: [Int64: DefaultSnapshot] = [:]
    /// The permanent identifier of each model inserted through this adapter, by its temporary one.
    private var remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
    /// The declared initial values of properties snapshots lacked, by entity and property index
    /// (`nil` for a property without one), evaluated once, as a lightweight migration writes one
    /// value into every row.
    private var initialValues: [String: [Int: SnapshotValue?]] = [:]
    private var storeName: String { String(describing: Store.self) }

    init(store: Store, schema: Schema) {
        self.store = store
        self.identifier = store.identifier
        self.keyTable = ExternalKeyTable.table(for: store.identifier)
        self.entities = schema.entities
        self.shapes = Dictionary(uniqueKeysWithValues: schema.entities.map { ($0.name, RowShape(entity: $0)) })
        store.initializeState(for: editingState)
    }

    deinit { store.invalidateState(for: editingState) }

    // MARK: Capabilities

    /// The store gets the fetch descriptor itself; the context evaluates every filter again in Swift.
    func canEvaluate(_ expression: QueryExpression) -> Bool { false }

    /// The store gets the sort descriptors itself; the context sorts again in Swift.
    func canSort(by sort: [QuerySort]) -> Bool { false }

    func rowShape(of entity: Schema.Entity) throws -> RowShape {
        guard let shape = shapes[entity.name] else {
            throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, reason: "\(storeName) \(identifier) does not hold \(entity.name)")
        }
        return shape
    }

    // MARK: Reading

    func forEachRow(_ fetch: StoreFetch, attributes: [Int]?, _ body: (StoreRow) throws -> Void) throws {
        let shape = try rowShape(of: fetch.entity)
        let rows = try locked { try fetched(fetch).map { try row(of: $0.snapshot, key: $0.key, shape: shape, attributes: attributes) } }
        for row in rows { try body(row) }
    }

    func count(_ fetch: StoreFetch) throws -> Int {
        try locked { try fetched(fetch).count }
    }

    func primaryKeys(_ fetch: StoreFetch) throws -> [Int64] {
        try locked { try fetched(fetch).map(\.key) }
    }

    func forEachRow(of entity: Schema.Entity, primaryKeys: [Int64], _ body: (StoreRow) throws -> Void) throws {
        let shape = try rowShape(of: entity)
        let rows = try locked {
            try snapshots(of: entity, keys: primaryKeys).map { try row(of: $0.snapshot, key: $0.key, shape: shape, attributes: nil) }
        }
        for row in rows { try body(row) }
    }

    func loadAttribute(of entity: Schema.Entity, primaryKey: Int64, attribute: Int, _ body: (StoreRow) throws -> Void) throws -> Bool {
        let row: SnapshotRow? = try locked {
            guard let snapshot = try snapshots(of: entity, keys: [primaryKey]).first?.snapshot else { return nil }
            return SnapshotRow(columns: [try value(of: snapshot, property: attribute, entity: entity)], _context: (entity.name, entity.fields[attribute].name))
        }
        guard let row else { return false }
        try body(row)
        return true
    }

    func rowExists(of entity: Schema.Entity, key: Int64) throws -> Bool {
        try locked { try !snapshots(of: entity, keys: [key]).isEmpty }
    }

    func forEachRelatedRow(
        of link: RelationshipLink, from source: Schema.Entity, owners: [Int64], destination: Schema.Entity,
        _ body: (StoreRow, _ owner: Int64) throws -> Void
    ) throws {
        let shape = try rowShape(of: destination)
        let rows: [(SnapshotRow, Int64)] = try locked {
            var related: [(snapshot: DefaultSnapshot, key: Int64, owner: Int64)] = []
            switch link.storage {
            case .foreignKey, .link(_, ownerIsSource: true):
                // The owner's snapshot names the related models.
                let ownerSnapshots = try snapshots(of: source, keys: owners)
                let wanted = try ownerSnapshots.flatMap { owner -> [(Int64, Int64)] in
                    let ids: [PersistentIdentifier] = switch owner.snapshot.values[link.name] {
                    case .identifier(let id): [id]
                    case .identifiers(let ids): ids
                    default: []
                    }
                    return try ids.map { (try key(of: $0), owner.key) }
                }
                let found = Dictionary(try snapshots(of: destination, keys: wanted.map(\.0)).map { ($0.key, $0.snapshot) }, uniquingKeysWith: { first, _ in first })
                related = wanted.compactMap { key, owner in found[key].map { ($0, key, owner) } }
            case .inverseForeignKey, .link(_, ownerIsSource: false):
                // The related models' snapshots name the owner: the inverse, or the owning side of the pairs.
                let property: String
                if case .link(let name, _) = link.storage { property = name.property } else {
                    guard let inverse = link.inverse else { return [] }
                    property = destination.fields[inverse].name
                }
                // Grouped by owner, each group in the store's order (the order models were first saved).
                var groups = Dictionary(owners.map { ($0, [(snapshot: DefaultSnapshot, key: Int64, owner: Int64)]()) }, uniquingKeysWith: { first, _ in first })
                for candidate in try allSnapshots(of: destination) {
                    let ids: [PersistentIdentifier] = switch candidate.snapshot.values[property] {
                    case .identifier(let id): [id]
                    case .identifiers(let ids): ids
                    default: []
                    }
                    for id in ids {
                        let owner = try key(of: id)
                        groups[owner]?.append((candidate.snapshot, candidate.key, owner))
                    }
                }
                var seen = Set<Int64>()
                related = owners.filter { seen.insert($0).inserted }.flatMap { groups[$0] ?? [] }
            }
            return try related.map { (try row(of: $0.snapshot, key: $0.key, shape: shape, attributes: nil), $0.owner) }
        }
        for (row, owner) in rows { try body(row, owner) }
    }

    // MARK: Writing

    func save(_ changes: StoreChanges) throws -> StoreSaveResult {
        try locked {
            var request = try SaveRequestBuilder(adapter: self, changes: changes)
            try request.removeReferencesToDeleted()
            let result = try store.save(DataStoreSaveChangesRequest(
                editingState: began(EditingState(id: changes.editingStateID ?? editingState.id, author: changes.author)),
                inserted: try request.inserted.map(userSnapshot),
                updated: try request.updated.map(userSnapshot),
                deleted: try request.deleted.map(userSnapshot)))
            return try apply(result, of: request, changes: changes)
        }
    }

    /// A custom store holds what it opened itself (SwiftData's `DataStore` has no closing call):
    /// the adapter has nothing to close.
    func close() {}

    func eraseAll() throws {
        try locked {
            try store.erase()
            snapshots.removeAll()
        }
    }

    /// Brings the adapter's snapshots and the inserted models up to date after the store saved.
    private func apply(_ result: DataStoreSaveChangesResult<Store.Snapshot>, of request: SaveRequestBuilder, changes: StoreChanges) throws -> StoreSaveResult {
        let map = result.remappedIdentifiers
        var keys: [Int64] = []
        keys.reserveCapacity(request.inserted.count)
        for snapshot in request.inserted {
            guard let permanent = map[snapshot.persistentIdentifier], let key = permanent.primaryKey else {
                throw SwiftDataError(.storeFailure, reason: "\(storeName) saved a new \(snapshot.persistentIdentifier.entityName) without a permanent identifier for it in remappedIdentifiers; a store assigns one to each inserted snapshot (PersistentIdentifier.identifier(for:entityName:primaryKey:))")
            }
            remapped[snapshot.persistentIdentifier] = permanent
            keys.append(key)
        }
        for snapshot in request.inserted + request.updated {
            let permanent = map[snapshot.persistentIdentifier] ?? snapshot.persistentIdentifier
            if let key = permanent.primaryKey { snapshots[key] = snapshot.copy(persistentIdentifier: permanent, remappedIdentifiers: remapped) }
        }
        for snapshot in request.deleted {
            if let key = snapshot.persistentIdentifier.primaryKey { snapshots[key] = nil }
        }
        for (id, snapshot) in result.snapshotsToReregister {
            if let key = id.primaryKey { snapshots[key] = try defaultSnapshot(snapshot) }
        }
        // Only now, once nothing can fail: the inserted models take their keys.
        for ((_, model), key) in zip(changes.inserts, keys) { model._osdState.primaryKey = key }
        return StoreSaveResult(inserted: keys, upserted: [], batchDeleted: request.batchDeleted)
    }

    // MARK: Snapshots

    /// Runs `body` with the store's lock held, for calls into the store from other files.
    func withStoreLock<R>(_ body: () throws -> R) throws -> R { try locked(body) }

    /// A context's editing state, after telling the store of it if this is its first request.
    private func began(_ state: EditingState) -> EditingState {
        if state.id != editingState.id, contextStates.insert(state.id).inserted { store.initializeState(for: state) }
        return state
    }

    /// Tells the store that a context it served is gone.
    func editingStateEnded(_ state: EditingState) {
        lock.lock()
        defer { lock.unlock() }
        if contextStates.remove(state.id) != nil { store.invalidateState(for: state) }
    }

    /// Runs `body` with the lock held.
    private func locked<R>(_ body: () throws -> R) throws -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// The snapshots a fetch selects, in the store's order, page applied.
    private func fetched(_ fetch: StoreFetch) throws -> [(snapshot: DefaultSnapshot, key: Int64)] {
        guard fetch.filter == nil, fetch.sort.isEmpty else {
            throw SwiftDataError(.storeFailure, reason: "\(storeName) was asked to filter or sort \(fetch.entity.name) in the store, which it declined")
        }
        let result: (fetched: [Store.Snapshot], related: [PersistentIdentifier: Store.Snapshot])
        if let source = fetch.source {
            result = try source.snapshots(from: store, editingState: began(fetch.editingState ?? editingState))
        } else {
            result = try fetchAll(fetch.entity.modelType)
        }
        for snapshot in result.related.values { try remember(snapshot) }
        var selected = try result.fetched.compactMap { snapshot -> (DefaultSnapshot, Int64)? in
            let (remembered, key) = try remember(snapshot)
            return remembered.persistentIdentifier.entityName == fetch.entity.name ? (remembered, key) : nil
        }
        if let offset = fetch.offset, offset > 0 { selected = Array(selected.dropFirst(offset)) }
        if let limit = fetch.limit { selected = Array(selected.prefix(max(limit, 0))) }
        return selected
    }

    private func fetchAll<T: PersistentModel>(_ type: T.Type) throws -> (fetched: [Store.Snapshot], related: [PersistentIdentifier: Store.Snapshot]) {
        let result = try store.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<T>(), editingState: editingState))
        return (result.fetchedSnapshots, result.relatedSnapshots)
    }

    /// Every snapshot of an entity, read from the store.
    func allSnapshots(of entity: Schema.Entity) throws -> [(snapshot: DefaultSnapshot, key: Int64)] {
        try fetched(StoreFetch(entity: entity))
    }

    /// The snapshots of the given keys that exist, in the order given: remembered ones, then the
    /// store's cached ones, then a fetch of the entity.
    func snapshots(of entity: Schema.Entity, keys: [Int64]) throws -> [(snapshot: DefaultSnapshot, key: Int64)] {
        let missing = keys.filter { snapshots[$0] == nil }
        if !missing.isEmpty {
            let location = _ModelLocation(entityName: entity.name, storeIdentifier: identifier, keyTable: keyTable)
            let ids = missing.map { PersistentIdentifier(location: location, key: .permanent($0)) }
            for snapshot in try store.cachedSnapshots(for: ids, editingState: editingState).values { try remember(snapshot) }
            if missing.contains(where: { snapshots[$0] == nil }) { _ = try allSnapshots(of: entity) }
        }
        return keys.compactMap { key in
            guard let snapshot = snapshots[key], snapshot.persistentIdentifier.entityName == entity.name else { return nil }
            return (snapshot, key)
        }
    }

    /// Keeps a snapshot the store returned, and returns it with its key.
    @discardableResult
    private func remember(_ snapshot: Store.Snapshot) throws -> (DefaultSnapshot, Int64) {
        let converted = try defaultSnapshot(snapshot)
        let key = try key(of: converted.persistentIdentifier)
        snapshots[key] = converted
        return (converted, key)
    }

    /// The key of an identifier the store returned; a temporary one must be one this adapter saw
    /// replaced.
    func key(of id: PersistentIdentifier) throws -> Int64 {
        if let key = id.primaryKey { return key }
        if let key = remapped[id]?.primaryKey { return key }
        throw SwiftDataError(.storeFailure, reason: "\(storeName) returned the temporary identifier of a \(id.entityName) saved earlier; a store replaces the identifiers of new models, including those in relationships (copy(persistentIdentifier:remappedIdentifiers:) with the identifiers it assigned)")
    }

    /// The identifier of the model a key names in this store.
    func identifier(ofKey key: Int64) -> PersistentIdentifier? {
        if let entry = keyTable.entry(for: key) {
            return PersistentIdentifier(location: _ModelLocation(entityName: entry.entityName, storeIdentifier: identifier, keyTable: keyTable), key: .permanent(key))
        }
        return snapshots[key]?.persistentIdentifier
    }

    /// A row of a snapshot: the key, then the values of `attributes` (or the shape's selected
    /// properties), each checked against its property's type.
    private func row(of snapshot: DefaultSnapshot, key: Int64, shape: RowShape, attributes: [Int]?) throws -> SnapshotRow {
        let properties = attributes ?? shape.selectedProperties
        var columns: [SnapshotValue] = [.integer(key)]
        columns.reserveCapacity(properties.count + 1)
        for index in properties { columns.append(try value(of: snapshot, property: index, entity: shape.entity)) }
        return SnapshotRow(columns: columns, _context: nil)
    }

    /// A property's value in a snapshot, in the form its type reads. A property the snapshot
    /// does not mention (one the model gained after the store wrote the model) reads as `nil`, or
    /// as the initial value its declaration gives, as a lightweight migration fills it in the
    /// built-in stores. A mistyped value, or no value for a non-optional property without an
    /// initial value, is an error that names the model and property, never a default.
    private func value(of snapshot: DefaultSnapshot, property index: Int, entity: Schema.Entity) throws -> SnapshotValue {
        let field = entity.fields[index]
        guard let storage = field.storage else { return .null }
        func mismatch(_ what: String) -> SwiftDataError {
            SwiftDataError(.modelValidationFailure, reason: "\(storeName) returned \(what) for \(entity.name).\(field.name) of \(snapshot.persistentIdentifier)")
        }
        guard let value = try snapshot.values[field.name] ?? (field.isOptional ? .null : try initialValue(of: index, entity: entity)) else {
            throw mismatch("no value, and the property declares no initial value,")
        }
        if case .null = value {
            guard field.isOptional else { throw mismatch("no value") }
            return .null
        }
        if entity.links[index] != nil {
            guard case .identifier(let id) = value else { throw mismatch("\(value), not a related model's identifier,") }
            return .integer(try key(of: id))
        }
        switch (storage, value) {
        case (.integer, .integer), (.unsignedInteger, .integer), (.real, .real), (.date, .date), (.date, .real),
             (.text, .text), (.json, .json), (.uuid, .uuid), (.blob, .bytes), (.decimal, .bytes):
            return value
        case (.real, .integer(let number)):
            return .real(Double(number))
        case (.json, .text(let text)):
            return .json(text)
        default:
            throw mismatch("\(value), which is not a \(storage) value,")
        }
    }

    /// The initial value a property's declaration gives (`var rating = 0`), as a snapshot value;
    /// `nil` for a property without one.
    private func initialValue(of index: Int, entity: Schema.Entity) throws -> SnapshotValue? {
        if let known = initialValues[entity.name]?[index] { return known }
        let writer = SnapshotWriter(entity: entity, identifierOfKey: { _ in nil })
        let value = try entity.modelType._osdWriteDefault(property: index, to: writer, at: Int32(index)) ? writer.values[index] : nil
        initialValues[entity.name, default: [:]][index] = .some(value)
        return value
    }

    /// A snapshot of the store's type as a ``DefaultSnapshot``.
    private func defaultSnapshot(_ snapshot: Store.Snapshot) throws -> DefaultSnapshot {
        if let snapshot = snapshot as? DefaultSnapshot { return snapshot }
        return try JSONCoding.decoder().decode(DefaultSnapshot.self, from: JSONCoding.encoder().encode(snapshot))
    }

    /// A ``DefaultSnapshot`` as a snapshot of the store's type.
    private func userSnapshot(_ snapshot: DefaultSnapshot) throws -> Store.Snapshot {
        if let snapshot = snapshot as? Store.Snapshot { return snapshot }
        return try JSONCoding.decoder().decode(Store.Snapshot.self, from: JSONCoding.encoder().encode(snapshot))
    }
}
