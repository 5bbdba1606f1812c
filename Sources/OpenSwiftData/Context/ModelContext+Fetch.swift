extension ModelContext {
    /// Returns the models that match the fetch descriptor, in its sort order.
    ///
    /// The store evaluates as much of the predicate and sort as it can express; any part it cannot
    /// is evaluated in Swift, so the results are always those `predicate.evaluate` selects. With
    /// `includePendingChanges` (the default), unsaved inserts, changes and deletions count.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        guard let observer = container.observer else {
            try prepareToFetch(includingPendingChanges: descriptor.includePendingChanges)
            return try fetchPrepared(descriptor)
        }
        let started = StoreObserver.now()
        defer { observer.fetched(T._osdEntityName, since: started) }
        try prepareToFetch(includingPendingChanges: descriptor.includePendingChanges)
        return try fetchPrepared(descriptor)
    }

    /// ``fetch(_:)`` once ``prepareToFetch(includingPendingChanges:)`` has run.
    private func fetchPrepared<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        let query = try FetchQuery(descriptor, context: self)
        if !descriptor.includePendingChanges, !query.isResolvedInStore, hasChanges {
            // Part of the work runs in Swift, which would see this context's unsaved values: it runs
            // in a context without changes, on the saved ones, and the results are this context's models.
            return try ModelContext(container).fetch(descriptor).compactMap { model(for: $0.persistentModelID) as? T }
        }
        var results: [T] = try fetchModels(query.shape, fetch: query.storeFetch, attributes: query.attributes)
        // What another process committed before this fetch is in its rows; a store that hears of
        // such commits with its replies knows of them only now, so the context merges them now.
        if container.externalSaves.markersLag { mergeChangesFromOtherContexts() }
        if !descriptor.relationshipKeyPathsForPrefetching.isEmpty {
            try prefetch(descriptor.relationshipKeyPathsForPrefetching, of: results, shape: query.shape)
        }
        // A model class with subclasses: their rows are in their own tables, each filtered by
        // the predicate as far as it translates; order and page are applied below.
        for subentity in query.entity.descendants {
            let shape = try container.store(for: subentity).rowShape(of: subentity)
            let plan = self.plan(for: descriptor, entity: subentity)
            // Inherited properties keep their indices in a subclass, so `propertiesToFetch` applies.
            let models: [T] = try fetchModels(shape, fetch: StoreFetch(entity: subentity, filter: plan.filter), attributes: query.attributes)
            if !descriptor.relationshipKeyPathsForPrefetching.isEmpty {
                try prefetch(descriptor.relationshipKeyPathsForPrefetching, of: models, shape: shape)
            }
            results += models
        }
        if query.isResolvedInStore { return results }
        if query.includesPendingChanges {
            var seen = Set(results.lazy.map { ObjectIdentifier($0) })
            results.removeAll { $0._osdState.isDeleted }
            if !tracker.pendingBatchDeletes.isEmpty {
                // Rows a pending deletion by predicate will remove at the save. (A copy: the
                // predicate reads the models, which may load from the store.)
                let pendingDeletes = tracker.pendingBatchDeletes
                results = try results.filter { model in
                    let removed = try pendingDeletes.contains { pending in
                        guard pending.entity.name == model._osdState.entityName else { return false }
                        return try pending.filter(model)
                    }
                    return !removed
                }
            }
            for case let model as T in tracker.changed + tracker.insertedModels where !model._osdState.isDeleted && seen.insert(ObjectIdentifier(model)).inserted {
                results.append(model)
            }
        }
        let spansTables = !query.entity.descendants.isEmpty
        if let predicate = descriptor.predicate, !query.plan.isExact || query.includesPendingChanges || spansTables {
            results = try results.filter { try Self.matches(predicate, $0) }
        }
        if !descriptor.sortBy.isEmpty, !query.plan.sortIsExact || query.includesPendingChanges || spansTables {
            results.sortAsStored(by: descriptor.sortBy)
        } else if spansTables && descriptor.sortBy.isEmpty && (descriptor.fetchLimit != nil || descriptor.fetchOffset != nil) {
            // A page over several tables needs one order: the keys, which the hierarchy shares.
            results.sort { $0._osdState.primaryKey < $1._osdState.primaryKey }
        }
        return Array(results.dropFirst(max(descriptor.fetchOffset ?? 0, 0)).prefix(max(descriptor.fetchLimit ?? .max, 0)))
    }

    /// Returns the number of models that match the fetch descriptor.
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        try prepareToFetch(includingPendingChanges: descriptor.includePendingChanges)
        let query = try FetchQuery(descriptor, context: self)
        if query.isResolvedInStore { return try query.store.count(query.storeFetch) }
        return try fetchPrepared(descriptor).count
    }

    /// Returns the identifiers of the models that match the fetch descriptor.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        try prepareToFetch(includingPendingChanges: descriptor.includePendingChanges)
        let query = try FetchQuery(descriptor, context: self)
        if query.isResolvedInStore {
            let location = location(of: query.entity)
            return try storedKeys(of: query).map { PersistentIdentifier(location: location, key: .permanent($0)) }
        }
        return try fetchPrepared(descriptor).map(\.persistentModelID)
    }

    /// What every fetch, count and fetch of identifiers does first, so that they all answer from
    /// the same state: merge what other contexts saved, throw a failed read deferred since the last
    /// fetch, and, when pending changes count, apply the delete rules of pending deletions.
    private func prepareToFetch(includingPendingChanges: Bool) throws {
        mergeChangesFromOtherContexts()
        try throwDeferredReadFailure()
        if includingPendingChanges { propagatePendingDeletions() }
    }

    /// Returns the matching models as a collection that loads them in batches as you access them.
    ///
    /// - Throws: ``SwiftDataError/includePendingChangesWithBatchSize`` when the descriptor includes
    ///   pending changes and the context has unsaved changes of that model.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int) throws -> FetchResultsCollection<T> {
        let (query, keys) = try batchKeys(descriptor)
        return FetchResultsCollection(keys: keys, batchSize: max(batchSize, 1), context: self, shape: query.shape)
    }

    /// Returns the identifiers of the matching models as a collection, in the descriptor's order.
    ///
    /// - Parameters:
    ///   - descriptor: A fetch descriptor that provides the configuration for the fetch.
    ///   - batchSize: The maximum number of identifiers in each batch. The keys of the matching rows
    ///     are read at once (they are small); identifiers are made as you access them.
    /// - Throws: ``SwiftDataError/includePendingChangesWithBatchSize`` when the descriptor includes
    ///   pending changes and the context has unsaved changes of that model.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int) throws -> FetchResultsCollection<PersistentIdentifier> {
        try prepareToFetch(includingPendingChanges: false)
        let query = try FetchQuery(descriptor, context: self)
        if query.includesPendingChanges { throw SwiftDataError.includePendingChangesWithBatchSize }
        guard query.isResolvedInStore else {
            // Rows of several classes of a hierarchy, or filtered in Swift: each model's own identifier.
            return FetchResultsCollection(try fetch(descriptor).map(\.persistentModelID))
        }
        let keys = try storedKeys(of: query)
        return FetchResultsCollection(keys: keys, storeIdentifier: query.store.identifier, entityName: query.entity.name)
    }

    /// The query of a batched fetch and the keys of its rows, in order.
    private func batchKeys<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> (FetchQuery, [Int64]) {
        // Only the merge before the check of pending changes: applying pending deletions' rules
        // here could make the pending changes a batch refuses.
        try prepareToFetch(includingPendingChanges: false)
        let query = try FetchQuery(descriptor, context: self)
        if query.includesPendingChanges { throw SwiftDataError.includePendingChangesWithBatchSize }
        if query.isResolvedInStore { return (query, try storedKeys(of: query)) }
        return (query, try fetch(descriptor).map { $0._osdState.primaryKey })
    }

    /// Runs a closure for each model that matches the fetch descriptor, loading the models in batches.
    public func enumerate<T: PersistentModel>(
        _ fetch: FetchDescriptor<T>, batchSize: Int = 5000, allowEscapingMutations: Bool = false,
        block: (T) throws -> Void
    ) throws {
        var descriptor = fetch
        if descriptor.includePendingChanges, let entity = entity(for: T.self), FetchQuery.hasPendingChanges(self, entity: entity) {
            for model in try self.fetch(descriptor) { try block(model) }
            return
        }
        descriptor.includePendingChanges = false
        for model in try self.fetch(descriptor, batchSize: batchSize) { try block(model) }
    }

    /// Loads the rows a store fetch selects as models of type `T`, reusing registered instances.
    func fetchModels<T: PersistentModel>(_ shape: RowShape, fetch: StoreFetch, attributes: [Int]? = nil) throws -> [T] {
        let objects = try fetchObjects(shape, fetch: fetch, attributes: attributes)
        if shape.entity.modelType == T.self {
            // Every element is a `T`, and an array of class references has the same representation
            // whatever the class: the per-row work stays free of generic code.
            return unsafeBitCast(objects, to: [T].self)
        }
        return objects.compactMap { $0 as? T }
    }

    /// Loads the rows a store fetch selects as models, reusing registered instances.
    func fetchModels(_ shape: RowShape, fetch: StoreFetch, attributes: [Int]? = nil) throws -> [any PersistentModel] {
        // Every object a fetch materializes is a model, so none is dropped.
        try fetchObjects(shape, fetch: fetch, attributes: attributes).compactMap { $0 as? any PersistentModel }
    }

    private func fetchObjects(_ shape: RowShape, fetch: StoreFetch, attributes: [Int]?) throws -> [AnyObject] {
        let store = container.store(for: shape.entity)
        return try materializeRows(shape, attributes: attributes) { try store.forEachRow(fetch, attributes: attributes, $0) }
    }

    /// Loads the rows among `keys` that a keyed fetch selects as models of type `T`, reusing
    /// registered instances.
    func fetchModels<T: PersistentModel>(_ shape: RowShape, keyed: any KeyedFetch, keys: [Int64], attributes: [Int]?) throws -> [T] {
        try materializeRows(shape, attributes: attributes) { try keyed.forEachRow(keys: keys, $0) }.compactMap { $0 as? T }
    }

    /// Materializes each row `rows` reads as a model of `shape`'s entity.
    private func materializeRows(_ shape: RowShape, attributes: [Int]?, _ rows: ((StoreRow) throws -> Void) throws -> Void) throws -> [AnyObject] {
        let registered = registeredModels(of: shape.entity)
        // A result set holds each row once, so a context that has none of these models registered
        // needs no identity-map lookups.
        let needsLookup = !registered.models.isEmpty || !registered.orphans.isEmpty
        var results: [AnyObject] = []
        let location = location(of: shape.entity)
        if !needsLookup, !registered.holdsWeakly, !shape.decodesOwnModels {
            // Decoding looks none of these models up, so they can join the identity map together
            // after the last row: in one pass, at its final size, without growing on the way.
            var keys: [Int64] = []
            try rows { row in
                let key = try Self.primaryKey(of: row, in: shape.entity)
                results.append(try make(row, key: key, shape: shape, attributes: attributes, location: location))
                keys.append(key)
            }
            registered.models.insertAll(results, forKeys: keys, of: shape.entity.modelType)
            return results
        }
        try rows { row in
            results.append(try materialize(row, shape: shape, attributes: attributes, registered: registered, lookup: needsLookup, location: location))
        }
        return results
    }

    /// The keys of the rows a query selects, in order.
    private func storedKeys(of query: FetchQuery) throws -> [Int64] {
        let keys = try query.store.primaryKeys(query.storeFetch)
        if keys.contains(0) { throw Self.rowWithKeyZero(in: query.entity) }
        return keys
    }

    /// The error for a row (or a reference to a row) whose key is 0, which no store hands out and which a model cannot have
    /// (it means "not saved yet"): another program wrote it.
    static func rowWithKeyZero(in entity: Schema.Entity) -> SwiftDataError {
        SwiftDataError(.storeIsCorrupt, reason: "The \(entity.name) table holds a row whose key is 0, which no store hands out (another program wrote it): a model of it could not be saved. Give the row another key, one no other row of the model has ever used.")
    }

    /// The model for the current row: the registered instance, or a new one decoded from the row.
    func materialize(
        _ row: StoreRow, shape: RowShape, attributes: [Int]?, registered: RegisteredModels, lookup: Bool = true,
        location: _ModelLocation? = nil
    ) throws -> any PersistentModel {
        let primaryKey = try Self.primaryKey(of: row, in: shape.entity)
        if lookup, let existing = registered.model(forKey: primaryKey) {
            if existing._osdState.isFault, attributes == nil { fill(existing, from: row, shape: shape) }
            return existing
        }
        let model = try make(row, key: primaryKey, shape: shape, attributes: attributes, location: location)
        if registered.holdsWeakly {   // the identity map's own setting, read without an access check
            // What a stand-in loads is held by the orphans it loads for; a to-one decoded now
            // would refer back to them, and nothing would ever release either. It loads on access.
            for (property, link) in shape.entity.links where link.storage == .foreignKey { model._osdUnload(property: property) }
        }
        registered.insert(model, forKey: primaryKey)
        return model
    }

    /// The key of the current row; throws for 0, which no store hands out.
    @inline(__always)
    private static func primaryKey(of row: StoreRow, in entity: Schema.Entity) throws -> Int64 {
        let key = row._int64(0)
        if key == 0 { throw rowWithKeyZero(in: entity) }
        return key
    }

    /// A new model decoded from the current row, whose key is `key`, owned by this context and
    /// not yet in its identity map.
    private func make(_ row: StoreRow, key: Int64, shape: RowShape, attributes: [Int]?, location: _ModelLocation?) throws -> any PersistentModel {
        try decode(shape.entity.modelType, row: row, key: key, shape: shape, attributes: attributes, location: location ?? self.location(of: shape.entity))
    }

    private func decode<M: PersistentModel>(
        _ type: M.Type, row: StoreRow, key: Int64, shape: RowShape, attributes: [Int]?, location: _ModelLocation
    ) throws -> M {
        let model: M
        if shape.hasConstants {
            let source = ConstantSource(context: self, entity: shape.entity, key: key, row: (row, attributes ?? shape.selectedProperties))
            model = try ConstantSource.make(M.self, source: source, location: location)
        } else {
            model = M._osdMake(primaryKey: key, context: reference, location: location)
        }
        do {
            if attributes == nil && shape.loadsAllAttributes {
                try model._osdDecodeAll(from: row, startingAt: 1, resolving: self)
                for property in shape.keylessToOne { model._osdUnload(property: property) }
            } else {
                // The loaded attributes are in ascending order; every other one is marked unloaded,
                // so that its first access loads it (an optional's implicit `nil` is not its value).
                let loaded = attributes ?? shape.selectedProperties
                var next = 0
                for index in 0..<shape.entity.fields.count {
                    if next < loaded.count, loaded[next] == index {
                        try model._osdDecode(property: index, from: row, at: Int32(next + 1), resolving: self)
                        next += 1
                    } else {
                        model._osdUnload(property: index)
                    }
                }
            }
        } catch {
            throw describeDecodingFailure(M.self, row: row, shape: shape, attributes: attributes, error: error)
        }
        return model
    }

    /// Finds the property whose stored value failed to decode, for the error message.
    private func describeDecodingFailure<M: PersistentModel>(_ type: M.Type, row: StoreRow, shape: RowShape, attributes: [Int]?, error: any Error) -> SwiftDataError {
        let probe = M._osdMake()
        let entity = shape.entity
        for (column, index) in (attributes ?? shape.selectedProperties).enumerated() where shape.links[index] == nil {
            do {
                try probe._osdDecode(property: index, from: row, at: Int32(column + 1), resolving: self)
            } catch {
                return SwiftDataError(.modelValidationFailure, reason: "Reading \(entity.name).\(entity.fields[index].name) of row \(row._int64(0)): \(error)")
            }
        }
        return SwiftDataError(.modelValidationFailure, reason: "Reading \(entity.name) row \(row._int64(0)): \(error)")
    }

    /// Evaluates a predicate in Swift. A force-unwrapped `nil` excludes the model, as in the store.
    static func matches<T>(_ predicate: Predicate<T>, _ model: T) throws -> Bool {
        do {
            return try predicate.evaluate(model)
        } catch let error as PredicateError where "\(error)".contains("nwrap") {
            return false
        }
    }
}

/// A fetch descriptor resolved against a context: its entity, plan and store fetch.
struct FetchQuery {
    let entity: Schema.Entity
    let shape: RowShape
    /// The store that holds the entity.
    let store: any StoreBackend
    /// The same store, when it computes aggregates itself.
    let aggregatingStore: (any AggregatingStore)?
    let plan: QueryPlan
    let storeFetch: StoreFetch
    /// The attributes to load, or `nil` for the layout's eager attributes.
    let attributes: [Int]?
    /// Whether the context's unsaved changes of this entity affect the results.
    let includesPendingChanges: Bool
    /// Whether the store alone produces the exact results, page included.
    let isResolvedInStore: Bool

    init<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, context: ModelContext) throws {
        let entity = try context.requireEntity(for: T.self)
        self.entity = entity
        let slot = context.container.storeSlot(for: entity)
        store = slot.store
        aggregatingStore = slot.capabilities.aggregates
        shape = try store.rowShape(of: entity)
        plan = context.plan(for: descriptor, entity: entity)
        includesPendingChanges = descriptor.includePendingChanges && FetchQuery.hasPendingChanges(context, entity: entity)
        isResolvedInStore = plan.isExact && plan.sortIsExact && !includesPendingChanges && entity.descendants.isEmpty
        var fetch = StoreFetch(entity: entity, filter: plan.filter, sort: plan.sortIsExact ? plan.sort : [])
        if isResolvedInStore {
            fetch.limit = descriptor.fetchLimit
            fetch.offset = descriptor.fetchOffset
        }
        if slot.capabilities.takesFetchDescriptors {
            fetch.source = descriptor
            fetch.editingState = context.editingState
        }
        storeFetch = fetch
        if descriptor.propertiesToFetch.isEmpty {
            attributes = nil
        } else {
            let wanted = Set(descriptor.propertiesToFetch.compactMap { entity.propertyIndex(for: $0) })
            attributes = shape.eagerAttributes.filter { wanted.contains($0) }
        }
    }

    static func hasPendingChanges(_ context: ModelContext, entity: Schema.Entity) -> Bool {
        if !context.tracker.pendingBatchDeletes.isEmpty { return true }
        let entityName = entity.name
        let subentities = entity.descendants
        func matches(_ model: any PersistentModel) -> Bool {
            let name = model._osdState.entityName
            return name == entityName || (!subentities.isEmpty && subentities.contains { $0.name == name })
        }
        return context.tracker.inserted.contains { matches($0.model) } || context.tracker.deleted.contains(where: matches)
            || context.tracker.changed.contains { matches($0) && $0._osdState.changedProperties != 0 }
    }
}
