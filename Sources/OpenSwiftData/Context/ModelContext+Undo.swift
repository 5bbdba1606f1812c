import Foundation

/// Undo and redo. With an ``ModelContext/undoManager``, every change the context tracks
/// registers the operation that reverts it, and that operation registers the one that performs the
/// change again (the redo): an insertion, a deletion, each attribute change and each relationship
/// change, including the inverse relationships and cascades the change brought with it. Without
/// an undo manager, none of this runs: a setter reads one flag.
///
/// Undo works across saves, as in SwiftData: undoing an insertion that was saved deletes the
/// model; undoing a deletion that was saved inserts the model again, as a new model (with a new
/// identifier), with the values and relationships it had; undoing a change that was saved makes
/// it again, to be saved. A save itself registers nothing.
extension ModelContext {
    /// The undo manager to register with now: `nil` without one, or while registration is off.
    var undoRecorder: UndoManager? {
        guard reference.registersUndo, let manager = undoManager, UndoRegistration.isEnabled(manager) else { return nil }
        return manager
    }

    /// Registers `revert`, with this context as its target.
    func registerUndo(with manager: UndoManager, _ revert: @escaping (ModelContext) -> Void) {
        UndoRegistration.register(revert, with: manager, target: self)
    }

    // MARK: Insertions

    /// Registers the undo of a model's entering the context as a new model.
    @inline(never)
    func registerUndoOfInsertion(_ model: any PersistentModel) {
        guard let manager = undoRecorder else { return }
        registerUndo(with: manager) { $0.revertInsertion(of: model) }
    }

    /// Takes a model an undone operation inserted back out of the context; once it was saved,
    /// deletes it.
    func revertInsertion(of model: any PersistentModel) {
        let state = model._osdState
        guard state.context === self, !state.isDeleted else { return }
        guard state.isInserted else { return delete(model) }
        if let manager = undoRecorder { registerUndo(with: manager) { $0.insertOne(model) } }
        tracker.inserted.removeAll { $0.model === model }
        state.isInserted = false
        state.context = nil
        didMutate()
    }

    // MARK: Deletions

    /// Registers the undo of marking a saved model for deletion. The model first loads every
    /// value and relationship it has not loaded yet: once the deletion is saved, its row is gone,
    /// and the undo inserts it again from what it holds.
    @inline(never)
    func registerUndoOfDeletion(_ model: any PersistentModel) {
        guard let manager = undoRecorder, let entity = entity(of: model) else { return }
        loadEveryProperty(of: model)
        var relationships: [(property: Int, models: [AnyObject])] = []
        for property in entity.links.keys {
            var models: [AnyObject] = []
            model._osdVisitRelated(property: property, loading: false) { models.append($0) }
            relationships.append((property, models))
        }
        registerUndo(with: manager) { $0.revertDeletion(of: model, relationships: relationships) }
    }

    /// Restores a model whose deletion is undone: unmarks a pending deletion, or inserts a model
    /// whose deletion was saved again, with the relationships it had.
    func revertDeletion(of model: any PersistentModel, relationships: [(property: Int, models: [AnyObject])]) {
        let state = model._osdState
        guard state.isDeleted else { return }
        if state.context === self {
            return undelete(model)
        }
        guard state.context == nil, state.primaryKey != 0, let entity = entity(of: model) else { return }
        // The saved deletion took the row and the model's relationships: a new model now.
        state.isDeleted = false
        state.isListedAsChanged = false
        state.primaryKey = 0
        state.temporaryKey = 0
        state.changedProperties = 0
        insertOne(model)
        for (property, models) in relationships {
            setRelationship(of: model, property: property, to: models)
            guard let inverse = entity.links[property]?.inverse else { continue }
            for case let target as any PersistentModel in models where target._osdState.context === self {
                let displaced = relate(target, property: inverse, to: model, adding: true)
                if let displaced, displaced !== model { relate(displaced, property: property, to: target, adding: false) }
            }
        }
    }

    /// Unmarks a model marked for deletion; registers the deletion as its undo.
    func undelete(_ model: some PersistentModel) {
        model._osdState.isDeleted = false
        if let position = tracker.deleted.firstIndex(where: { $0 === model }) {
            tracker.deleted.remove(at: position)
            if position < tracker.propagatedDeletions { tracker.propagatedDeletions -= 1 }
        }
        if let manager = undoRecorder { registerUndo(with: manager) { $0.delete(model) } }
    }

    /// Reads every property of a model through its getter, which loads what is not loaded yet.
    private func loadEveryProperty(of model: any PersistentModel) {
        func read<M: PersistentModel>(_ model: M) {
            for property in M.schemaMetadata { _ = model[keyPath: property.keypath] }
        }
        read(model)
    }

    // MARK: Relationships

    /// Adds `other` to, or removes it from, one relationship of `target` without inverse
    /// maintenance, registering how to put the relationship back.
    @discardableResult
    func relate(_ target: any PersistentModel, property: Int, to other: any PersistentModel, adding: Bool) -> (any PersistentModel)? {
        registerUndoOfRelationship(of: target, property: property)
        return target._osdRelate(property: property, to: other, adding: adding)
    }

    /// Registers how to put one relationship of a model back as it is now, before it changes.
    ///
    /// A model out of the context (an unsaved one deleted since) counts as the context's: the
    /// undo operations that put it back run before or after this one, in the order they were made.
    func registerUndoOfRelationship(of model: any PersistentModel, property: Int) {
        guard let manager = undoRecorder, isOwnOrFree(model) else { return }
        var models: [AnyObject] = []
        model._osdVisitRelated(property: property, loading: true) { models.append($0) }
        let mark = ChangeMark(model, property: property, in: self)
        registerUndo(with: manager) { context in
            guard context.isOwnOrFree(model) else { return }
            context.setRelationship(of: model, property: property, to: models)
            mark.restore(on: model, in: context)
        }
    }

    /// Whether a model is this context's, or in no context.
    func isOwnOrFree(_ model: any PersistentModel) -> Bool {
        model._osdState.context.map { $0 === self } ?? true
    }

    /// Sets one relationship of a model to `models` without inverse maintenance (the models on
    /// the other side are put back by their own undo operations).
    private func setRelationship(of model: any PersistentModel, property: Int, to models: [AnyObject]) {
        registerUndoOfRelationship(of: model, property: property)
        model._osdSetRelated(property: property, to: models)
        model._osdDidChange(property: property)
    }

    // MARK: Attributes

    /// Registers setting an attribute back to `old` (its value before the setter runs).
    func registerUndoOfChange<M: PersistentModel, T>(
        of model: M, _ keyPath: ReferenceWritableKeyPath<M, T>, property: Int, from old: T, with manager: UndoManager
    ) {
        let mark = ChangeMark(model, property: property, in: self)
        registerUndo(with: manager) { context in
            guard model._osdState.context === context else { return }
            // Through the setter: Observation hears of it, and it registers the redo.
            model[keyPath: keyPath] = old
            mark.restore(on: model, in: context)
        }
    }
}

/// Whether one property of a model was unsaved-changed when an undo operation was registered, so
/// that undoing the change clears the mark again when the store still holds the value restored.
struct ChangeMark {
    private let bit: UInt64
    private let wasChanged: Bool
    private let saves: UInt64
    private let merges: UInt64

    init(_ model: any PersistentModel, property: Int, in context: ModelContext) {
        bit = 1 << UInt64(property)
        wasChanged = model._osdState.changedProperties & bit != 0
        saves = context.merging.saveGeneration
        merges = context.merging.mergeCount
    }

    /// Clears the property's change mark if it had none, and the context has neither saved nor
    /// merged another's save since. Otherwise the store may hold another value than the one
    /// restored, which then stays a change to save, as in Core Data.
    func restore(on model: any PersistentModel, in context: ModelContext) {
        guard !wasChanged, context.merging.saveGeneration == saves, context.merging.mergeCount == merges else { return }
        model._osdState.changedProperties &= ~bit
    }
}

/// Registers how to undo an attribute change. Called by `_osdWillSet` when the model's context
/// has an undo manager; not API.
public func _osdRegisterUndo<M: PersistentModel, T>(_ model: M, _ property: Int, _ type: T.Type) {
    guard let context = model._osdState.context, let manager = context.undoRecorder else { return }
    let metadata = M.schemaMetadata
    guard metadata.indices.contains(property), let keyPath = metadata[property].keypath as? ReferenceWritableKeyPath<M, T> else {
        return Diagnostics.report("\(M.self): the change of property \(property) cannot be undone (no writable key path of type \(T.self))")
    }
    // Through the getter: a value not loaded yet is loaded, so the undo restores the stored one.
    context.registerUndoOfChange(of: model, keyPath, property: property, from: model[keyPath: keyPath], with: manager)
}
