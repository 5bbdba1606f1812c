extension ModelContext {
    /// Writes the context's unsaved inserts, changes and deletions to the store, in one transaction.
    ///
    /// If the save fails, nothing is written and the context keeps its pending changes, so you can
    /// correct them and save again. Inserted models receive permanent identifiers.
    ///
    /// In a container of several configurations, each store's changes are written in one
    /// transaction of that store, in the order of the configurations. If one store's write fails,
    /// the stores before it keep what they wrote: the context records those changes as saved and
    /// keeps the rest pending, and the error is thrown.
    public func save() throws {
        // Looked up once for the whole save: each look retains the container and releases it
        // (through its side table: the container is also referred to weakly).
        let container = self.container
        // A save with nothing to write is not reported: the metrics count saves that write.
        guard let observer = container.observer, hasChanges else { return try saveChanges(in: container) }
        let started = StoreObserver.now()
        let models = tracker.inserted.count + tracker.changed.count + tracker.deleted.count
        do {
            try saveChanges(in: container)
            observer.saved(since: started, models: models, error: nil)
        } catch {
            observer.saved(since: started, models: models, error: error)
            throw error
        }
    }

    /// ``save()``, unobserved, to the context's container.
    private func saveChanges(in container: ModelContainer) throws {
        // A save's own bookkeeping (delete rules, forgetting deleted rows) registers no undo.
        reference.registersUndo = false
        defer { reference.registersUndo = undoManager != nil }
        // A save that only inserts writes nothing that depends on what others saved: it merges
        // their saves after it commits, found through the number of its history transaction,
        // instead of asking the store before. Sibling contexts' saves are merged either way.
        let insertsOnly = tracker.changed.isEmpty && tracker.deleted.isEmpty && tracker.pendingBatchDeletes.isEmpty && container.stores.count == 1
        mergeChangesFromOtherContexts(lookingOutside: !insertsOnly, of: container)
        if !tracker.deleted.isEmpty && container.externalSaves.markersLag {
            // A store that hears of other connections' commits with its replies (PostgreSQL) may
            // not have heard yet of one that related a model to a deleted one: one round trip
            // brings their news, so that the delete rules below apply to what they committed.
            do {
                for slot in container.stores { _ = try slot.latestHistoryTransaction() }
                mergeChangesFromOtherContexts(of: container)
            } catch {
                deferReadFailure(error)
            }
        }
        try throwDeferredReadFailure()
        if let refused = failures.refusedInsert {
            failures.refusedInsert = nil
            throw refused
        }
        guard hasChanges else { return }
        try checkSavesAllowed(in: container)
        let storeAppliesRules = storeCanApplyDeleteRules()
        if !storeAppliesRules { try loadModelsDeletedByRuleBearingPredicates() }
        // Delete rules first: a `.deny` throws before anything changed.
        try applyDeleteRules()
        try validateRelationships(in: container)
        NotificationCenter.default.post(name: ModelContext.willSave, object: self)
        var changes = StoreChanges()
        changes.author = author
        if container.stores.contains(where: { $0.capabilities.takesFetchDescriptors }) { changes.editingStateID = editingStateID }
        changes.recordsHistory = saving.recordsHistory
        changes.origin = container.externalSaves.origin
        changes.appliesDeleteRules = storeAppliesRules
        changes.companionRecords = saving.companionRecords
        var batchDeletedEntities: [Schema.Entity] = []
        var filteredDeletes: [(Schema.Entity, [Int64])] = []
        for pending in tracker.pendingBatchDeletes {
            if pending.plan.isExact {
                changes.batchDeletes.append((pending.entity, pending.plan.filter))
                batchDeletedEntities.append(pending.entity)
            } else {
                // The store cannot express the whole predicate: load the candidates and decide in Swift.
                let shape = try container.store(for: pending.entity).rowShape(of: pending.entity)
                let candidates: [any PersistentModel] = try fetchModels(shape, fetch: StoreFetch(entity: pending.entity, filter: pending.plan.filter))
                var keys: [Int64] = []
                for model in candidates where try pending.filter(model) {
                    changes.deletes.append((pending.entity, model._osdState.primaryKey))
                    keys.append(model._osdState.primaryKey)
                }
                filteredDeletes.append((pending.entity, keys))
            }
        }
        // Runs of models of one entity look their row shape up once: the models of an entity that
        // this context manages share one location, so the object tells a run without its name.
        var lastShape: (location: _ModelLocation, shape: RowShape)?
        func shape(of model: any PersistentModel) throws -> RowShape {
            guard let location = model._osdLocation else {
                throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, reason: "\(type(of: model)) has no entity in this context")
            }
            if let lastShape, lastShape.location === location { return lastShape.shape }
            guard let entity = container.schema.entitiesByName[location.entityName] else {
                throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, reason: "\(location.entityName) is not in the container's schema")
            }
            let shape = try container.store(for: entity).rowShape(of: entity)
            lastShape = (location, shape)
            return shape
        }
        for model in tracker.deleted {
            changes.deletes.append((try shape(of: model).entity, model._osdState.primaryKey))
        }
        if try changeListServesAsInserts(in: container) {
            // The change list is the change set's inserts as it is: no pass over the models.
            changes.inserts = tracker.inserted
        } else {
            changes.inserts.reserveCapacity(tracker.inserted.count)
            for (_, model) in tracker.inserted {
                let shape = try shape(of: model)
                changes.inserts.append((shape.entity, model))
                if shape.ownsLinks { appendLinkWrites(of: model, shape: shape, mask: ~0, to: &changes) }
            }
        }
        for model in tracker.changed where !model._osdState.isDeleted && model._osdState.changedProperties != 0 {
            let shape = try shape(of: model)
            // Changes to `.ephemeral` attributes are tracked, not stored.
            let mask = model._osdState.changedProperties & ~shape.ephemeralProperties
            guard mask != 0 else { continue }
            changes.updates.append((shape.entity, model, mask))
            if shape.ownsLinks { appendLinkWrites(of: model, shape: shape, mask: mask, to: &changes) }
        }

        if container.stores.count > 1 {
            return try saveAcrossStores(changes, batchDeletedEntities: batchDeletedEntities, filteredDeletes: filteredDeletes, in: container)
        }
        let result = try saveCountedInFlight(in: container) { try container.stores[0].store.save(changes) }
        let deletedAny = !changes.deletes.isEmpty || !changes.batchDeletes.isEmpty || !result.ruleDeleted.isEmpty
        let batchDeleted = storeAppliesRules
            ? result.ruleDeleted.map { ($0.entity, $0.keys) }
            : Array(zip(batchDeletedEntities, result.batchDeleted))
        didSave(changes: changes, insertedKeys: result.inserted, upserted: Set(result.upserted),
                batchDeleted: filteredDeletes.isEmpty ? batchDeleted : batchDeleted + filteredDeletes, in: container)
        if deletedAny {
            forgetReferences(toDeletedModelsOf: Set(changes.deletes.map(\.entity.name) + changes.batchDeletes.map(\.entity.name) + result.ruleDeleted.map(\.entity.name)))
        }
        noteSavedTransaction(result.historyTransaction, in: container)
    }

    /// Runs the store's save of the context's changes counted as one of the container's saves in
    /// flight, until ``noteSavedTransaction(_:in:)`` takes note of its transaction (or of none), so
    /// that saves that share a trip to the server and finish in any order do not read the history
    /// for each other (`ExternalSaves.noteOwnTransaction`). A save that throws is no longer counted.
    func saveCountedInFlight(in container: ModelContainer, _ save: () throws -> StoreSaveResult) throws -> StoreSaveResult {
        container.externalSaves.beginOwnSave(inStoreAt: 0)
        do {
            return try save()
        } catch {
            container.externalSaves.endOwnSave(inStoreAt: 0)
            throw error
        }
    }

    /// Moves the container's position in the store's history past a transaction this context
    /// recorded; when others committed before it, records their saves and merges them. (An
    /// inserts-only save did not look before it wrote; any other save looked, but another process
    /// can commit between that look and the save, and a PostgreSQL store learns of other
    /// processes' commits by notifications that may still be on their way.) The save has
    /// committed: a failed read is thrown by the next fetch or save, as for any merge. A save that
    /// recorded no transaction only stops counting as in flight (``saveCountedInFlight(in:_:)``).
    func noteSavedTransaction(_ transaction: Int64?, in container: ModelContainer) {
        guard let transaction else {
            container.externalSaves.endOwnSave(inStoreAt: 0)
            return
        }
        do {
            if try container.noteOwnTransaction(transaction, inStoreAt: 0) {
                mergeChangesFromOtherContexts(lookingOutside: false, of: container)
            }
        } catch {
            deferReadFailure(error)
        }
    }

    /// Whether the change list's inserts can serve as the change set's as they are: the models of
    /// each entity have that entity's own row shape (the one the store writes) and own no link
    /// tables (whose rows the save writes per model). Reads the entities only, not the models.
    private func changeListServesAsInserts(in container: ModelContainer) throws -> Bool {
        guard let first = tracker.inserted.first?.entity else { return true }
        guard try writesItsOwnRows(first, in: container) else { return false }
        // The entities after the first, checked once each (the list stays empty, and unallocated,
        // when every inserted model is of the first one's entity).
        var checked: [Schema.Entity] = []
        for index in tracker.inserted.indices {
            let entity = tracker.inserted[index].entity
            if entity === first || checked.contains(where: { $0 === entity }) { continue }
            guard try writesItsOwnRows(entity, in: container) else { return false }
            checked.append(entity)
        }
        return true
    }

    /// Whether the store writes the models of `entity` with that entity's own row shape and no
    /// link tables (see ``changeListServesAsInserts(in:)``).
    private func writesItsOwnRows(_ entity: Schema.Entity, in container: ModelContainer) throws -> Bool {
        let shape = try container.store(for: entity).rowShape(of: entity)
        return shape.entity === entity && !shape.ownsLinks
    }

    /// Throws ``SwiftDataError/saveNotAllowed`` before anything changes when a store with pending
    /// changes belongs to a configuration with `allowsSave: false`.
    private func checkSavesAllowed(in container: ModelContainer) throws {
        let slots = container.stores
        if slots.count == 1 {
            guard slots[0].configuration.allowsSave else {
                throw SwiftDataError(.saveNotAllowed, reason: "The container's configuration has allowsSave: false")
            }
            return
        }
        let names = Set((tracker.insertedModels + tracker.changed + tracker.deleted).compactMap(\._osdState.entityName) + tracker.pendingBatchDeletes.map(\.entity.name))
        for name in names {
            let configuration = slots[container.slot(forEntityNamed: name)].configuration
            guard configuration.allowsSave else {
                throw SwiftDataError(.saveNotAllowed, reason: "\(name) is stored by configuration \(configuration.name), which has allowsSave: false")
            }
        }
    }

    /// Whether this save's deletions of models with `.cascade` or `.deny` relationships run in the
    /// store, which applies the rules in SQL inside the save's transaction: a single store that
    /// can, predicates it evaluates exactly, and no other pending inserts or changes (the rules
    /// then apply to the stored relationships, which are the context's). The context applies the
    /// rules to the models it loads as well, before the save; the store's pass also reaches rows
    /// other connections related to the deleted ones since that look, up to the transaction. Otherwise the models
    /// are loaded and the rules applied to them alone.
    private func storeCanApplyDeleteRules() -> Bool {
        func bearsRules(_ entity: Schema.Entity) -> Bool {
            entity.links.values.contains { $0.deleteRule == .cascade || $0.deleteRule == .deny }
        }
        guard tracker.pendingBatchDeletes.contains(where: { bearsRules($0.entity) })
                || tracker.deleted.contains(where: { model in entity(of: model).map(bearsRules) ?? false }) else { return false }
        return saving.deleteRulesMayRunInStore && saving.appliesDeleteRules && container.stores.count == 1 && container.stores[0].capabilities.appliesDeleteRules
            && tracker.inserted.isEmpty && tracker.changed.isEmpty && tracker.pendingBatchDeletes.allSatisfy(\.plan.isExact)
    }

    /// Turns deletions by predicate of models with `.cascade` or `.deny` relationships into
    /// deletions of the loaded models, so that their rules apply. (Other deletions by predicate run
    /// in the store alone; the store removes every reference to the deleted rows.)
    private func loadModelsDeletedByRuleBearingPredicates() throws {
        var remaining: [(entity: Schema.Entity, filter: (any PersistentModel) throws -> Bool, plan: QueryPlan)] = []
        for pending in tracker.pendingBatchDeletes {
            guard pending.entity.links.values.contains(where: { $0.deleteRule == .cascade || $0.deleteRule == .deny }) else {
                remaining.append(pending)
                continue
            }
            let shape = try container.store(for: pending.entity).rowShape(of: pending.entity)
            let candidates: [any PersistentModel] = try fetchModels(shape, fetch: StoreFetch(entity: pending.entity, filter: pending.plan.filter))
            for model in candidates where try pending.filter(model) { delete(model) }
        }
        tracker.pendingBatchDeletes = remaining
    }

    /// Adds the link-table rewrites of the changed relationships a model owns a link table for.
    private func appendLinkWrites(of model: any PersistentModel, shape: RowShape, mask: UInt64, to changes: inout StoreChanges) {
        for (property, link) in shape.links where mask & (1 << UInt64(property)) != 0 {
            guard case .link(let name, true) = link.storage else { continue }
            var targets: [any PersistentModel] = []
            model._osdVisitRelated(property: property, loading: false) { targets.append($0) }
            changes.linkWrites.append((name, model, targets))
        }
    }

    /// After a save that deleted rows, unloads the relationships of registered models that still
    /// hold a deleted model (one-way relationships, `.noAction`, rows deleted by predicate), so
    /// that they read the store's state, where no reference to a deleted row remains.
    func forgetReferences(toDeletedModelsOf entities: Set<String>) {
        for (name, registered) in identityMap.registry {
            guard let entity = container.schema.entitiesByName[name] else { continue }
            let properties = entity.links.values.filter { entities.contains($0.destinationName) }.map(\.property)
            guard !properties.isEmpty else { continue }
            for model in registered.models.values {
                for property in properties {
                    var holdsDeleted = false
                    model._osdVisitRelated(property: property, loading: false) { related in
                        if related._osdState.isDeleted { holdsDeleted = true }
                    }
                    if holdsDeleted { model._osdUnload(property: property) }
                }
            }
        }
    }

    /// Updates the context after a successful save: permanent identifiers, cleared change sets,
    /// deleted models out of the identity map, and the `didSave` notification. When only some
    /// stores committed (`committedSlots`), only their models' changes are cleared; the rest stay
    /// pending.
    func didSave(
        changes: StoreChanges, insertedKeys: [Int64], upserted: Set<Int>, batchDeleted: [(Schema.Entity, [Int64])],
        committedSlots: Set<Int>? = nil, in container: ModelContainer
    ) {
        merging.saveGeneration &+= 1
        func isCommitted(_ model: any PersistentModel) -> Bool {
            guard let committedSlots, let name = model._osdState.entityName else { return true }
            return committedSlots.contains(container.slot(forEntityNamed: name))
        }
        var insertedIDs: [PersistentIdentifier] = []
        var updatedIDs: [PersistentIdentifier] = []
        var deletedIDs: [PersistentIdentifier] = []
        insertedIDs.reserveCapacity(changes.inserts.count)
        updatedIDs.reserveCapacity(changes.updates.count)
        // Deleted models leave the identity map first: SQLite may give a new row the key of a row
        // deleted in the same save, and the new model must not be taken for the deleted one.
        // Rows a batch delete removed are reported once, including those also deleted one by one.
        var reported: [String: Set<Int64>] = [:]
        for model in tracker.deleted where isCommitted(model) {
            reported[model._osdState.entityName!, default: []].insert(model._osdState.primaryKey)
            forget(model, into: &deletedIDs)
        }
        for (entity, keys) in batchDeleted {
            let registered = identityMap.registry[entity.name]
            let alreadyReported = reported[entity.name] ?? []
            let location = location(of: entity)
            deletedIDs.reserveCapacity(deletedIDs.count + keys.count)
            for key in keys where alreadyReported.isEmpty || !alreadyReported.contains(key) {
                if let model = registered?.model(forKey: key) {
                    model._osdState.isDeleted = true
                    forget(model, into: &deletedIDs)
                } else {
                    deletedIDs.append(PersistentIdentifier(location: location, key: .permanent(key)))
                }
            }
        }
        // Inserted models already know their context, entity and store; they get their primary
        // key and join the identity map of their entity, looked up once per run of one entity.
        let insertCount = min(changes.inserts.count, insertedKeys.count)
        var position = 0
        while position < insertCount {
            let entity = changes.inserts[position].entity
            let registered = registeredModels(of: entity)
            let location = location(of: entity)
            if position == 0 { registered.models.reserveCapacity(registered.models.count + insertCount) }
            repeat {
                let model = changes.inserts[position].model
                let key = insertedKeys[position]
                let identifier = PersistentIdentifier(location: location, key: .permanent(key))
                let state = model._osdState
                state.isInserted = false
                state.changedProperties = 0
                state.temporaryKey = 0
                state.primaryKey = key
                if upserted.contains(position) {
                    // The new model took over an existing row: it becomes that row's object in
                    // this context, and an object registered for the row before reloads the
                    // saved values.
                    if let previous = registered.model(forKey: key), previous !== model { refresh(previous) }
                    _ = registered.models.insert(model, for: key)
                    updatedIDs.append(identifier)
                } else {
                    _ = registered.models.insert(model, for: key)
                    insertedIDs.append(identifier)
                }
                position += 1
            } while position < insertCount && changes.inserts[position].entity === entity
        }
        for (entity, model, _) in changes.updates {
            updatedIDs.append(savedIdentifier(of: entity, key: model._osdState.primaryKey))
        }
        for model in tracker.changed where isCommitted(model) {
            model._osdState.changedProperties = 0
            model._osdState.isListedAsChanged = false
        }
        if let committedSlots {
            tracker.inserted.removeAll { isCommitted($0.model) }
            tracker.changed.removeAll(where: isCommitted)
            tracker.deleted.removeAll(where: isCommitted)
            tracker.pendingBatchDeletes.removeAll { committedSlots.contains(container.slot(forEntityNamed: $0.entity.name)) }
            tracker.propagatedDeletions = 0
        } else {
            tracker.removeAll()
        }
        announce(SavedChanges(insertedIdentifiers: insertedIDs, updatedIdentifiers: updatedIDs, deletedIdentifiers: deletedIDs), in: container)
    }

    /// Tells the container's other contexts and live results of a committed save of this context
    /// (the save log), and posts `didSave` with its identifiers.
    func announce(_ saved: SavedChanges, in container: ModelContainer) {
        container.didSave(saved, in: self)
        NotificationCenter.default.post(name: ModelContext.didSave, object: self, userInfo: saving.didSaveUserInfo.filled(with: saved))
        saving.didSaveUserInfo.clear()
    }

    /// The identifier of the saved model of `entity` whose row is `key`, as its
    /// `persistentModelID` gives it, without a look at the model.
    private func savedIdentifier(of entity: Schema.Entity, key: Int64) -> PersistentIdentifier {
        PersistentIdentifier(location: location(of: entity), key: .permanent(key))
    }

    /// Takes a deleted model out of the context once the store no longer has its row. As in
    /// SwiftData, the model then holds no relationships: optional to-one relationships read `nil`
    /// and to-many relationships read empty (its attributes keep their last values).
    private func forget(_ model: any PersistentModel, into deletedIDs: inout [PersistentIdentifier]) {
        let state = model._osdState
        deletedIDs.append(model.persistentModelID)
        identityMap.forget(entityName: state.entityName!, key: state.primaryKey)
        if let entity = entity(of: model) { dropRelationships(of: model, entity: entity) }
        state.context = nil
    }
}
