/// Keeps both sides of a relationship consistent as soon as one side changes, and brings models
/// that a managed model starts to reference into its context.
///
/// The work runs on `[AnyObject]` (every related model is a class instance), so that it is
/// compiled once, without generic metadata look-ups per element.
@usableFromInline
enum RelationshipMaintenance {
    /// Called by a relationship's setter before it stores `new`; returns what to store: `new`
    /// without repeated models (a model appears once in a relationship, as in SwiftData). `old`
    /// reads the current value, or `nil` while the relationship is not loaded.
    /// `model(_:)` views an element as a model without a dynamic cast.
    @usableFromInline
    static func willSet(
        _ model: any PersistentModel, property: Int, old: () -> [AnyObject]?, new: [AnyObject],
        model asModel: (AnyObject) -> any PersistentModel
    ) -> [AnyObject] {
        let reference = model._osdContextReference
        let context = reference?.current
        // A managed model's entity has its links at hand; a new model's are in the graph's table.
        let entity = context?.entity(of: model)
        guard let link = entity.map({ $0.link(at: property) }) ?? ModelGraph.link(type(of: model), property: property) else { return new }
        var previous = old()
        if previous == nil, context != nil, model._osdPrimaryKey != 0 {
            model._osdFulfill(property: property)
            previous = old()
        }
        if let context, context.reference.registersUndo {
            context.registerUndoOfRelationship(of: model, property: property)
        }
        let before = previous ?? []
        if new.count == before.count + 1, hasPrefix(new, before) {
            // The common edit, an append: only the new last model needs a look, and no list of
            // added models is made for it.
            let appended = new[before.count]
            if contains(before, appended) { return before }
            adopt(model, added: CollectionOfOne(appended), link: link, asModel: asModel)
            if let inverse = link.inverse {
                connect(asModel(appended), property: inverse, to: model, property: property)
            }
            return new
        }
        let stored = unique(new)
        let (removed, added) = difference(from: before, to: stored)
        adopt(model, added: added, link: link, asModel: asModel)
        guard let inverse = link.inverse else { return stored }
        for target in removed {
            relate(asModel(target), property: inverse, to: model, adding: false)
        }
        for target in added {
            connect(asModel(target), property: inverse, to: model, property: property)
        }
        return stored
    }

    /// Adds `model` to the inverse side (`inverse`) of a model it now relates to through
    /// `property`; when the related model's to-one inverse pointed at another model, takes it off
    /// that model's side too.
    private static func connect(_ related: any PersistentModel, property inverse: Int, to model: any PersistentModel, property: Int) {
        let displaced = relate(related, property: inverse, to: model, adding: true)
        if let displaced, displaced !== model {
            relate(displaced, property: property, to: related, adding: false)
        }
    }

    /// Edits one side of a relationship without maintenance; registers its undo when the model's
    /// context has an undo manager.
    @discardableResult @inline(__always)
    static func relate(_ target: any PersistentModel, property: Int, to other: any PersistentModel, adding: Bool) -> (any PersistentModel)? {
        if let reference = target._osdContextReference, reference.registersUndo, let context = reference.current {
            return context.relate(target, property: property, to: other, adding: adding)
        }
        return target._osdRelate(property: property, to: other, adding: adding)
    }

    /// Inserts newly related models into the context of `model`, or `model` into theirs; notes a
    /// model of another context for the next save to refuse.
    private static func adopt(_ model: any PersistentModel, added: some Collection<AnyObject>, link: RelationshipLink, asModel: (AnyObject) -> any PersistentModel) {
        guard !added.isEmpty else { return }
        if let context = model._osdState.context {
            for object in added {
                let target = asModel(object)
                let state = target._osdState
                if state.context == nil {
                    if !state.isDeleted { context.insert(target) }
                } else if state.context !== context, let entity = context.entity(of: model) {
                    context.noteCrossContextRelationship(entity: entity, link: link)
                }
            }
        } else {
            for object in added {
                if let context = asModel(object)._osdState.context {
                    context.insert(model)
                    return
                }
            }
        }
    }

    /// Whether `models` starts with the models of `prefix`, by identity.
    private static func hasPrefix(_ models: [AnyObject], _ prefix: [AnyObject]) -> Bool {
        for index in prefix.indices where models[index] !== prefix[index] { return false }
        return true
    }

    private static func contains(_ models: [AnyObject], _ model: AnyObject) -> Bool {
        for candidate in models where candidate === model { return true }
        return false
    }

    /// The models only in `old` and only in `new`, by identity, in their order.
    static func difference(from old: [AnyObject], to new: [AnyObject]) -> (removed: [AnyObject], added: [AnyObject]) {
        if old.isEmpty { return ([], new) }
        if new.isEmpty { return (old, []) }
        let oldIDs = Set(old.map(ObjectIdentifier.init))
        let newIDs = Set(new.map(ObjectIdentifier.init))
        return (old.filter { !newIDs.contains(ObjectIdentifier($0)) }, new.filter { !oldIDs.contains(ObjectIdentifier($0)) })
    }

    /// The models without repeats, in their order.
    @usableFromInline
    static func unique(_ models: [AnyObject]) -> [AnyObject] {
        guard models.count > 1 else { return models }
        if models.count <= 16 {
            // Small arrays: pairwise identity checks beat hashing.
            var hasRepeat = false
            search: for index in 1..<models.count {
                for earlier in 0..<index where models[earlier] === models[index] {
                    hasRepeat = true
                    break search
                }
            }
            if !hasRepeat { return models }
        }
        var seen = Set<ObjectIdentifier>()
        return models.filter { seen.insert(ObjectIdentifier($0)).inserted }
    }
}
