/// What a save wrote, for the context to bring its models up to date.
package struct StoreSaveResult {
    /// The primary key of each insert, in order: a new row, or the existing row it updated.
    package var inserted: [Int64]
    /// The positions of the inserts that updated an existing row (upserts).
    package var upserted: [Int]
    /// The rows each batch delete removed.
    package var batchDeleted: [[Int64]]
    /// The history transaction the save recorded, if the store keeps history.
    package var historyTransaction: Int64? = nil
    /// The rows each batch update changed, in the order of ``StoreChanges/batchUpdates``.
    package var batchUpdated: [[Int64]] = []
    /// When the store applied the delete rules (``StoreChanges/appliesDeleteRules``): every row it
    /// deleted, by entity, the batch deletes' rows and the ones their rules reached.
    package var ruleDeleted: [(entity: Schema.Entity, keys: [Int64])] = []

    /// A result with the keys of the inserts, which inserts became upserts, and each batch
    /// delete's rows.
    package init(inserted: [Int64], upserted: [Int], batchDeleted: [[Int64]]) {
        self.inserted = inserted
        self.upserted = upserted
        self.batchDeleted = batchDeleted
    }
}

/// Everything one save writes.
package struct StoreChanges {
    /// The author the history records for the save, the context's `author`.
    package var author: String?
    /// The identifier of the saving context's `editingState`, for custom stores.
    package var editingStateID: UUID?
    /// Whether the save is recorded in the store's history; migrations' saves are not.
    package var recordsHistory = true
    /// A number that names the saving container in the history, so that it can tell its own saves
    /// from other containers' and processes'.
    package var origin: Int64 = 0
    /// New models, with their entities.
    package var inserts: [(entity: Schema.Entity, model: any PersistentModel)] = []
    /// Changed models and the mask of their changed attributes.
    package var updates: [(entity: Schema.Entity, model: any PersistentModel, mask: UInt64)] = []
    /// Rows to delete.
    package var deletes: [(entity: Schema.Entity, primaryKey: Int64)] = []
    /// Filters whose matching rows to delete, without loading them.
    package var batchDeletes: [(entity: Schema.Entity, filter: QueryExpression?)] = []
    /// Whether the store applies the delete rules of the deleted rows (``StoreBackend/appliesDeleteRules``):
    /// `.cascade` through chains, `.deny` (throwing before anything changes), `.nullify`. Set only
    /// when the context has no other pending writes, so that the stored relationships are the
    /// ones to apply the rules to.
    package var appliesDeleteRules = false
    /// Many-to-many and one-way to-many relationships to write anew: the owner's pairs are
    /// replaced by one per target.
    package var linkWrites: [(link: LinkName, owner: any PersistentModel, targets: [any PersistentModel])] = []

    /// Updates by predicate, written after everything else (``StoreBackend/appliesBatchUpdates``).
    package var batchUpdates: [StoreBatchUpdate] = []

    /// Records of an add-on to write in the save's transaction, made after the models' rows are
    /// written (inserted models have their keys): only a ``CompanionRecordStore`` takes them.
    package var companionRecords: (() throws -> [CompanionRecord])?

    /// Whether the save's updates by predicate can change no row twice: it writes nothing else,
    /// and each entity has one at most (a history records each of their rows once as it is).
    package var batchUpdatesChangeEachRowOnce: Bool {
        inserts.isEmpty && updates.isEmpty && deletes.isEmpty && batchDeletes.isEmpty && linkWrites.isEmpty
            && Set(batchUpdates.map(\.entity.name)).count == batchUpdates.count
    }

    package var isEmpty: Bool {
        inserts.isEmpty && updates.isEmpty && deletes.isEmpty && batchDeletes.isEmpty && linkWrites.isEmpty && batchUpdates.isEmpty
    }
}

/// Attributes set to values in every row of an entity's table that a filter selects, without
/// loading the rows (``ModelContext/update(model:where:setting:includeSubclasses:)``).
package struct StoreBatchUpdate {
    /// One attribute and its new value.
    package struct Assignment {
        /// The attribute's index in the entity's properties: a stored attribute, neither
        /// ephemeral nor transformed, nor part of a uniqueness constraint.
        package var property: Int
        /// The new value, written as a model's property of its type is written.
        package var value: any _PersistentScalar

        package init(property: Int, value: any _PersistentScalar) {
            self.property = property
            self.value = value
        }
    }

    /// The entity whose table is updated (its own rows only: subclasses get updates of their own).
    package var entity: Schema.Entity
    /// The filter, exact for the store, or `nil` for every row.
    package var filter: QueryExpression?
    /// The attributes to set, each once, in the order given.
    package var assignments: [Assignment]

    /// An update of the rows of `entity`'s table that `filter` selects.
    package init(entity: Schema.Entity, filter: QueryExpression?, assignments: [Assignment]) {
        self.entity = entity
        self.filter = filter
        self.assignments = assignments
    }

    /// The properties the update changes, as a history mask (property `i` is bit `i`).
    package var mask: UInt64 {
        assignments.reduce(0) { $0 | 1 << UInt64($1.property) }
    }
}
