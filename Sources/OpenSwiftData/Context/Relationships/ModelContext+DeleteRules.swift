extension ModelContext {
    /// Applies the delete rules of the models marked for deletion, before a save writes anything:
    /// `.deny` first (a related model that stays makes the save throw, with nothing changed), then
    /// `.cascade` (the related models are deleted too, through chains) and `.nullify` (the deleted
    /// models leave their related models' inverse relationships). `.noAction` leaves related
    /// models as they are; the store still never keeps a reference to a deleted row.
    func applyDeleteRules() throws {
        guard !tracker.deleted.isEmpty else { return }
        guard saving.appliesDeleteRules else {
            for model in tracker.deleted { nullifyInverses(of: model, keeping: Set(tracker.deleted.map { ObjectIdentifier($0) })) }
            return
        }
        // The cascade closure, found without changing anything.
        var doomed = Set(tracker.deleted.map { ObjectIdentifier($0) })
        var order = tracker.deleted
        var position = 0
        while position < order.count {
            let model = order[position]
            position += 1
            guard let entity = entity(of: model) else { continue }
            for link in entity.links.values where link.deleteRule == .cascade {
                model._osdVisitRelated(property: link.property, loading: true) { related in
                    if doomed.insert(ObjectIdentifier(related)).inserted { order.append(related) }
                }
            }
        }
        for model in order {
            guard let entity = entity(of: model) else { continue }
            for link in entity.links.values where link.deleteRule == .deny {
                var blocking: (any PersistentModel)?
                model._osdVisitRelated(property: link.property, loading: true) { related in
                    if blocking == nil, !doomed.contains(ObjectIdentifier(related)) { blocking = related }
                }
                if blocking != nil {
                    throw SwiftDataError(.modelValidationFailure, reason: "\(entity.name).\(link.name) has the delete rule .deny and still holds a \(link.destinationName): delete or unlink the related models first. Nothing was saved; the context keeps its changes.")
                }
            }
        }
        for model in order.dropFirst(tracker.deleted.count) {
            if model._osdState.isInserted {
                delete(model)
            } else if !model._osdState.isDeleted {
                model._osdState.isDeleted = true
                tracker.deleted.append(model)
            }
        }
        for model in order { nullifyInverses(of: model, keeping: doomed) }
    }

    /// Applies the `.cascade` rules of the deletions made since the last call: the related models
    /// are marked deleted too, through chains, so that a fetch that includes pending changes no
    /// longer returns them, as in SwiftData. Called before such fetches and by
    /// ``processPendingChanges()``; `.deny` and `.nullify` still apply at save, where a `.deny`
    /// throws before anything changes.
    func propagatePendingDeletions() {
        guard saving.appliesDeleteRules else { return }
        while tracker.propagatedDeletions < tracker.deleted.count {
            let model = tracker.deleted[tracker.propagatedDeletions]
            tracker.propagatedDeletions += 1
            guard let entity = entity(of: model) else { continue }
            for link in entity.links.values where link.deleteRule == .cascade {
                var related: [any PersistentModel] = []
                model._osdVisitRelated(property: link.property, loading: true) { related.append($0) }
                // A saved model joins `deleted` (and is visited in turn); an unsaved one leaves the context.
                for target in related where target._osdState.context === self && !target._osdState.isDeleted {
                    delete(target)
                }
            }
        }
    }

    /// Applies the delete rules of a model deleted before it was ever saved: in memory only.
    func applyDeleteRulesToUnsaved(_ model: some PersistentModel) {
        guard let entity = entity(of: model) else { return }
        for link in entity.links.values where link.deleteRule == .cascade {
            var related: [any PersistentModel] = []
            model._osdVisitRelated(property: link.property, loading: false) { related.append($0) }
            for target in related where target._osdState.context === self { delete(target) }
        }
        nullifyInverses(of: model, keeping: [])
    }

    /// Removes `model` from the relationships of the context's models that hold it where no delete
    /// rule would: one-way relationships, and those whose inverse on `model`'s side is `.noAction`.
    /// For a model deleted before it was saved (the store never held those references), and, with
    /// an undo manager, for every deletion, so that undoing it puts the model back.
    func releaseFromOneWayHolders(_ model: any PersistentModel) {
        guard let entity = entity(of: model) else { return }
        var names: Set<String> = []
        var ancestor: Schema.Entity? = entity
        while let current = ancestor {
            names.insert(current.name)
            ancestor = current.superentity
        }
        func holdingProperties(of holderEntity: Schema.Entity) -> [Int] {
            holderEntity.links.values.filter { link in
                guard names.contains(link.destinationName) else { return false }
                guard let inverse = link.inverse else { return true }
                return entity.links[inverse]?.deleteRule == .noAction
            }.map(\.property)
        }
        func release(from holders: some Sequence<any PersistentModel>, properties: [Int]) {
            for holder in holders where holder !== model {
                for property in properties {
                    var holds = false
                    holder._osdVisitRelated(property: property, loading: false) { if $0 === model { holds = true } }
                    if holds { RelationshipMaintenance.relate(holder, property: property, to: model, adding: false) }
                }
            }
        }
        for (name, registered) in identityMap.registry {
            guard let holderEntity = container.schema.entitiesByName[name] else { continue }
            let properties = holdingProperties(of: holderEntity)
            if !properties.isEmpty { release(from: registered.models.values, properties: properties) }
        }
        for (holderEntity, holder) in tracker.inserted {
            let properties = holdingProperties(of: holderEntity)
            if !properties.isEmpty { release(from: CollectionOfOne(holder), properties: properties) }
        }
    }

    /// Removes `model` from the inverse relationships of the models it relates to, except those
    /// deleted along with it, unless the relationship's rule is `.noAction`.
    func nullifyInverses(of model: any PersistentModel, keeping doomed: Set<ObjectIdentifier>) {
        guard let entity = entity(of: model) else { return }
        for link in entity.links.values where link.deleteRule != .noAction {
            guard let inverse = link.inverse else { continue }
            var related: [any PersistentModel] = []
            model._osdVisitRelated(property: link.property, loading: true) { related.append($0) }
            for target in related where !doomed.contains(ObjectIdentifier(target)) {
                RelationshipMaintenance.relate(target, property: inverse, to: model, adding: false)
            }
        }
    }
}
