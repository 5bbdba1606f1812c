/// What a context changed since its last save: the models it inserted, the saved models it
/// changed and marked deleted, and the deletions by predicate it will apply. The save pipeline
/// reads it to build the store's change set and empties it once the change set is written;
/// undo and autosave follow its changes.
struct ChangeTracker {
    /// Models inserted since the last save, in insertion order, each with its entity (known as
    /// it is inserted). In the shape of a store change set's inserts, so that a save whose
    /// entities own no link tables hands this list over as they are, without a pass over the
    /// models.
    var inserted: [(entity: Schema.Entity, model: any PersistentModel)] = []

    /// The inserted models, without their entities.
    var insertedModels: [any PersistentModel] { inserted.map(\.model) }
    /// Saved models changed since the last save.
    var changed: [any PersistentModel] = []
    /// Saved models marked for deletion.
    var deleted: [any PersistentModel] = []
    /// Deletions by predicate to apply at the next save: the entity, whether a loaded model of it
    /// satisfies the predicate, and the predicate's plan.
    var pendingBatchDeletes: [(entity: Schema.Entity, filter: (any PersistentModel) throws -> Bool, plan: QueryPlan)] = []
    /// How many of ``deleted`` have had their `.cascade` rules applied.
    var propagatedDeletions = 0

    /// Whether anything is to be saved: an insertion, a deletion, a deletion by predicate, or a
    /// changed model with a property set since the last save.
    var hasChanges: Bool {
        !inserted.isEmpty || !deleted.isEmpty || !pendingBatchDeletes.isEmpty
            || changed.contains { $0._osdState.changedProperties != 0 }
    }

    /// Forgets every change (after a rollback; a save forgets what it wrote itself).
    mutating func removeAll() {
        inserted.removeAll()
        deleted.removeAll()
        propagatedDeletions = 0
        changed.removeAll()
        pendingBatchDeletes.removeAll()
    }
}
