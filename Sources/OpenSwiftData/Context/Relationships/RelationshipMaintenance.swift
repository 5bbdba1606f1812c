/// Keeps both sides of a relationship consistent as soon as one side changes, and brings models
/// that a managed model starts to reference into its context.
enum RelationshipMaintenance {
    /// Called by a relationship's setter before it stores `new`. `old` reads the current value, or
    /// `nil` while the relationship is not loaded.
    static func willSet<M: PersistentModel>(
        _ model: M, property: Int, old: () -> [any PersistentModel]?, new: [any PersistentModel]
    ) {
        guard let link = ModelGraph.link(M.self, property: property) else { return }
        let state = model._osdState
        var previous = old()
        if previous == nil, state.primaryKey != 0, state.context != nil {
            state._fulfill(model, property: property)
            previous = old()
        }
        adopt(model, related: new)
        guard let inverse = link.inverse else { return }
        let before = previous ?? []
        let (removed, added) = difference(from: before, to: new)
        for target in removed {
            _ = target._osdRelate(property: inverse, to: model, adding: false)
        }
        for target in added {
            let displaced = target._osdRelate(property: inverse, to: model, adding: true)
            // The target's to-one inverse pointed at another model, whose side still lists it.
            if let displaced, displaced !== model {
                _ = displaced._osdRelate(property: property, to: target, adding: false)
            }
        }
    }

    /// Inserts new related models into the context of `model`, or `model` into theirs.
    private static func adopt(_ model: some PersistentModel, related: [any PersistentModel]) {
        if let context = model._osdState.context {
            for target in related where target._osdState.context == nil && !target._osdState.isDeleted {
                context.insert(target)
            }
        } else if let context = related.lazy.compactMap({ $0._osdState.context }).first {
            context.insert(model)
        }
    }

    /// The models only in `old` and only in `new`, by identity, in their order.
    static func difference(
        from old: [any PersistentModel], to new: [any PersistentModel]
    ) -> (removed: [any PersistentModel], added: [any PersistentModel]) {
        // The common edit, an append, compares the shared prefix only.
        if new.count == old.count + 1, zip(old, new).allSatisfy({ $0 === $1 }) { return ([], [new.last!]) }
        if old.isEmpty { return ([], new) }
        let oldIDs = Set(old.map { ObjectIdentifier($0) })
        let newIDs = Set(new.map { ObjectIdentifier($0) })
        return (old.filter { !newIDs.contains(ObjectIdentifier($0)) }, new.filter { !oldIDs.contains(ObjectIdentifier($0)) })
    }

    /// The models without repeats, in their order.
    static func unique<R: AnyObject>(_ models: [R]) -> [R] {
        guard models.count > 1 else { return models }
        if models.count <= 16 {
            // Small arrays: pairwise identity checks beat hashing.
            var hasRepeat = false
            for index in models.indices.dropFirst() where models[..<index].contains(where: { $0 === models[index] }) {
                hasRepeat = true
                break
            }
            if !hasRepeat { return models }
        }
        var seen = Set<ObjectIdentifier>()
        return models.filter { seen.insert(ObjectIdentifier($0)).inserted }
    }
}
