extension ModelContext {
    /// Brings the context's registered models up to date with what other contexts of the container
    /// saved since the context last looked.
    ///
    /// A model another context changed becomes a fault: its properties reload from the store on next
    /// access (notifying Observation now), except those this context changed and has not saved,
    /// which keep their local values. A model another context deleted leaves the identity map,
    /// reports `isDeleted` and holds no relationships, as after a deletion saved here. The context
    /// calls this itself before each fetch, `model(for:)`, save and `processPendingChanges()`
    /// (after a save that only inserts, for other processes' saves); the main context also does
    /// it soon after any other context saves.
    ///
    /// A read that fails while refreshing (the store busy, an I/O error) never looks like a
    /// deletion: the models stay as they are, the next merge tries again, and the error is thrown
    /// by the next `fetch` or `save` (``throwDeferredReadFailure()``).
    ///
    /// - Parameter lookingOutside: Whether to ask the stores first for what other containers and
    ///   processes saved (a cheap check, but one SQLite statement); the merge of sibling contexts'
    ///   saves needs no look.
    func mergeChangesFromOtherContexts(lookingOutside: Bool = true) {
        mergeChangesFromOtherContexts(lookingOutside: lookingOutside, of: container)
    }

    /// ``mergeChangesFromOtherContexts(lookingOutside:)`` with the context's container, which the
    /// caller has looked up already (each look retains and releases it).
    func mergeChangesFromOtherContexts(lookingOutside: Bool = true, of container: ModelContainer) {
        if lookingOutside {
            do {
                _ = try container.pullExternalSaves()
            } catch {
                deferReadFailure(error)
            }
        }
        let (othersSaved, latestSeen) = container.saveLog.othersSaved(after: merging.seenGeneration, excluding: ObjectIdentifier(self))
        if !othersSaved || identityMap.holdsNoModels {
            // Nothing to refresh or mark deleted (no other context saved, as after this context's
            // own save; or the context holds no models, as a server's context per request that
            // has only inserted): only what the context has seen moves on, without copying the
            // log's entries, which under many concurrent saves cost more than the save itself.
            merging.seenGeneration = latestSeen
            if othersSaved { merging.mergeCount &+= 1 }
            return
        }
        let (entries, latest) = container.saveLog.saves(after: merging.seenGeneration, excluding: ObjectIdentifier(self))
        guard latest != merging.seenGeneration else { return }
        let previous = merging.seenGeneration
        merging.seenGeneration = latest
        if entries?.isEmpty != true { merging.mergeCount &+= 1 }
        guard let entries, entries.allSatisfy({ $0.updated != nil }) else {
            do {
                try refreshAllRegisteredModels()
            } catch {
                merging.seenGeneration = previous
                failures.readFailure = error
            }
            return
        }
        for entry in entries {
            for id in entry.updated ?? [] {
                if let model = registeredModel(id) { refresh(model) }
            }
            for id in entry.deleted ?? [] {
                guard let model = registeredModel(id) else { continue }
                let state = model._osdState
                state.isDeleted = true
                identityMap.forget(entityName: id.entityName, key: state.primaryKey)
                if let entity = entity(of: model) { dropRelationships(of: model, entity: entity) }
            }
        }
    }

    /// Throws, once, the error of a store read made where the API could not throw (a merge, a
    /// model actor's subscript), so that a caller of a throwing API learns of it.
    func throwDeferredReadFailure() throws {
        guard let failure = failures.readFailure else { return }
        failures.readFailure = nil
        throw failure
    }

    /// Refreshes every registered model, for saves the log no longer holds in detail. Models whose
    /// rows are gone report `isDeleted` and leave the identity map. Throws, with the models of
    /// that entity left as they were, when a read fails.
    private func refreshAllRegisteredModels() throws {
        for (name, registered) in identityMap.registry {
            guard let entity = container.schema.entitiesByName[name] else { continue }
            let keys = registered.models.values.map(\._osdState.primaryKey)
            var existing = Set<Int64>()
            try container.store(for: entity).forEachRow(of: entity, primaryKeys: keys) { existing.insert($0._int64(0)) }
            for model in registered.models.values {
                if existing.contains(model._osdState.primaryKey) {
                    refresh(model)
                } else {
                    model._osdState.isDeleted = true
                    registered.remove(model._osdState.primaryKey)
                    dropRelationships(of: model, entity: entity)
                }
            }
        }
    }

    /// Turns a saved model into a fault, keeping the properties changed in this context.
    func refresh(_ model: any PersistentModel) {
        let state = model._osdState
        guard state.primaryKey != 0, !state.isInserted, let name = state.entityName,
              let entity = container.schema.entitiesByName[name] else { return }
        for index in entity.fields.indices where state.changedProperties & (1 << UInt64(index)) == 0 {
            model._osdUnload(property: index)
        }
        state.isFault = true
    }
}
