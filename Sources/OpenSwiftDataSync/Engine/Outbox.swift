import Foundation
import OpenSwiftData

/// The local changes the server has not acknowledged: the store's history after the last
/// acknowledged transaction, less the engine's own saves.
///
/// Nothing is queued apart from the history: a change is pending from the moment its save commits,
/// whatever context or process made it, and stays pending until the server acknowledges the
/// transaction that holds it.
struct Outbox {
    let store: ReplicationStore
    /// The engine's author name, whose saves are never sent.
    let author: String
    /// The synchronized models, by name.
    let entities: [String: ReplicatedEntity]

    /// The local changes to synchronized models after `transaction`.
    func pendingChangeCount(after transaction: Int64) throws -> Int {
        try store.history.historyTransactions(after: transaction).reduce(0) { count, transaction in
            transaction.author == author ? count : count + transaction.changes.filter { entities[$0.entityName] != nil }.count
        }
    }

    /// The rows with local changes after `transaction`: the properties each changed (by row key),
    /// and the rows deleted. A pulled value does not replace a property changed here and not yet
    /// acknowledged.
    func pendingRows(after transaction: Int64) throws -> PendingRows {
        var pending = PendingRows()
        let layouts = store.history.historyFieldLayouts
        pending.readThrough = transaction
        for transaction in try store.history.historyTransactions(after: transaction) {
            pending.readThrough = transaction.id
            guard transaction.author != author else { continue }
            for change in transaction.changes {
                guard let entity = entities[change.entityName] else { continue }
                let row = SyncState.rowKey(entity: change.entityName, key: change.key)
                switch change.kind {
                case .insert:
                    pending.changed[row, default: []].formUnion(entity.properties.map(entity.name(of:)))
                    pending.inserted.insert(row)
                case .update: pending.changed[row, default: []].formUnion(layouts.names(change.changedProperties, of: change.entityName, recordedIn: transaction.id) ?? [])
                case .delete: pending.deleted.insert(row)
                }
            }
        }
        return pending
    }

    /// Whether a local transaction (the engine's own saves left out) follows `transaction`.
    func hasLocalTransaction(after transaction: Int64) throws -> Bool {
        try store.history.historyTransactions(after: transaction).contains { $0.author != author }
    }

    /// The next batch to push after `state`, or `nil` when nothing is pending. Rows that get their
    /// synchronized identifier now come with the records that bind them, to be written before the
    /// batch is sent.
    func nextBatch(after state: SyncState, limit: Int, context: ModelContext) throws -> PushBatch? {
        let transactions = try store.history.historyTransactions(after: state.pushedThrough)
        guard let first = transactions.first else { return nil }
        var batch = PushBatch(sequence: first.id, clock: state.clock)
        var rows: [String: PendingRow] = [:]
        var order: [String] = []
        var changeCount = 0
        for transaction in transactions {
            if transaction.author != author && changeCount >= limit { break }
            batch.sequence = transaction.id
            guard transaction.author != author else { continue }
            batch.clock = batch.clock.next(at: transaction.timestamp, client: state.client)
            for change in transaction.changes {
                guard let entity = entities[change.entityName] else { continue }
                let key = SyncState.rowKey(entity: change.entityName, key: change.key)
                if rows[key] == nil {
                    rows[key] = PendingRow(entity: entity, key: change.key)
                    order.append(key)
                }
                changeCount += 1
                batch.historyChangeCount += 1
                switch change.kind {
                case .insert:
                    rows[key]?.inserted = true
                    rows[key]?.insertedIn = transaction.id
                    for index in entity.properties { rows[key]?.clocks[entity.name(of: index)] = batch.clock }
                case .update:
                    for name in store.history.historyFieldLayouts.names(change.changedProperties, of: change.entityName, recordedIn: transaction.id) ?? [] {
                        rows[key]?.clocks[name] = batch.clock
                    }
                case .delete:
                    rows[key]?.deletedAt = batch.clock
                }
            }
        }
        var builder = BatchBuilder(store: store, entities: entities, context: context, clock: batch.clock)
        try builder.prefetch(order.compactMap { rows[$0] })
        for key in order {
            guard let row = rows[key] else { continue }
            try builder.add(row)
        }
        batch.changes = builder.changes
        batch.bindings = builder.bindings
        batch.knownClocks = builder.knownClocks
        return batch
    }
}

/// One row's pending changes within a batch.
struct PendingRow {
    let entity: ReplicatedEntity
    let key: Int64
    var inserted = false
    /// The history transaction that inserted the model, when the batch covers it.
    var insertedIn: Int64?
    var deletedAt: SyncClock?
    /// The clock of each changed property's last change.
    var clocks: [String: SyncClock] = [:]
}

/// A batch of changes to push, numbered by the last history transaction it covers.
struct PushBatch {
    var sequence: Int64
    /// The clock after the batch's transactions.
    var clock: SyncClock
    var changes: [SyncChange] = []
    /// The local changes of the history the batch covers, as ``Outbox/pendingChangeCount(after:)`` counts them.
    var historyChangeCount = 0
    /// Records binding rows new to the server to their identifiers.
    var bindings: [CompanionRecord] = []
    /// The known clocks (``KnownClocks``) of the batch's models when it was built, by identifier.
    var knownClocks: [String: [String: SyncClock]] = [:]
}

/// The rows with local changes the server has not acknowledged, by row key (`Entity#key`).
struct PendingRows {
    /// The properties changed of each row (every property of an inserted one).
    var changed: [String: Set<String>] = [:]
    /// The rows inserted.
    var inserted: Set<String> = []
    /// The rows deleted.
    var deleted: Set<String> = []
    /// The last history transaction read (of any author): a local save after it is not included.
    var readThrough: Int64 = 0
}
