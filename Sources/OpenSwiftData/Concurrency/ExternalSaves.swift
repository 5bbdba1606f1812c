import Foundation

/// Follows the saves that other containers and other processes make to a container's stores, so
/// that its contexts merge them as they merge their siblings' saves.
///
/// A store says cheaply whether anything else committed since it last looked (SQLite:
/// `PRAGMA data_version` on the writer connection); only then is its history read past the last
/// transaction seen, and the transactions this container did not record become saves in its
/// ``SaveLog``. A save needs no look at all: the number of the transaction it recorded tells
/// whether anything committed since the last one seen (``noteOwnTransaction(_:inStoreAt:into:stores:source:)``).
final class ExternalSaves: Sendable {
    private struct Position: Sendable {
        var marker: Int64?
        var lastSeen: Int64 = 0
        /// This container's saves that have begun and not yet been noted or ended.
        var savesInFlight = 0
        /// The transactions of this container's saves noted past a gap after `lastSeen`.
        var ownAhead: Set<Int64> = []

        /// Moves `lastSeen` over the transactions of this container noted just after it.
        mutating func advanceOverOwn() {
            while ownAhead.remove(lastSeen + 1) != nil { lastSeen += 1 }
        }

        /// Sets `lastSeen` to a transaction read from the history, forgetting the container's own
        /// transactions up to it.
        mutating func seen(through id: Int64) {
            lastSeen = max(lastSeen, id)
            if !ownAhead.isEmpty { ownAhead = ownAhead.filter { $0 > lastSeen } }
            advanceOverOwn()
        }
    }

    /// How many of this container's transactions may wait past a gap for the saves still in
    /// flight before the history is read anyway.
    static let largestOwnAhead = 64

    private let positions: LockedValue<[Position]>
    /// The number this container's saves carry in the history (``StoreChanges/origin``).
    let origin = Int64.random(in: 1...Int64.max)

    /// Whether a store's marker can lag behind its reads (``ExternalCommitWatchingStore/externalCommitMarkerLags``):
    /// a fetch then looks again once the store has answered it.
    let markersLag: Bool

    /// Starts following the stores from their current history.
    init(stores: [StoreSlot]) throws {
        markersLag = stores.contains { $0.capabilities.externalCommits?.externalCommitMarkerLags == true }
        positions = LockedValue(try stores.map { slot in
            var position = Position()
            position.marker = try slot.externalCommitMarker()
            position.lastSeen = try slot.latestHistoryTransaction()
            return position
        })
    }

    /// Records in the log the saves others made since the last look; returns whether there were any.
    func pull(into log: SaveLog, stores: [StoreSlot], source: ObjectIdentifier) throws -> Bool {
        try positions.withValue { positions in
            var found = false
            for (index, slot) in stores.enumerated() {
                guard let marker = try slot.externalCommitMarker(), marker != positions[index].marker else { continue }
                positions[index].marker = marker
                let transactions = try slot.historyTransactions(after: positions[index].lastSeen)
                guard let last = transactions.last?.id else { continue }
                positions[index].seen(through: last)
                for transaction in transactions where transaction.origin != origin {
                    log.record(Self.changes(transaction, store: slot.store.identifier), from: source)
                    found = true
                }
            }
            return found
        }
    }

    /// Counts a save of this container to the store at `index` as begun: its transaction, once
    /// noted, may come after those of saves that began with it and have not been noted yet.
    /// Each begun save is noted (``noteOwnTransaction(_:inStoreAt:into:stores:source:)``) or
    /// ended (``endOwnSave(inStoreAt:)``).
    func beginOwnSave(inStoreAt index: Int) {
        positions.withValue { $0[index].savesInFlight += 1 }
    }

    /// Counts a begun save as ended without a transaction to note (it failed, or recorded none).
    func endOwnSave(inStoreAt index: Int) {
        positions.withValue { $0[index].savesInFlight = max($0[index].savesInFlight - 1, 0) }
    }

    /// Takes note of a transaction a begun save of this container just recorded in the store at
    /// `index`, and ends the save. When it follows the last one seen, directly or over this
    /// container's own transactions, nothing else committed in between and nothing is read (the
    /// cheap path of every save). A gap left while other saves of the container are in flight is
    /// theirs most likely: saves that share a trip to the server finish in any order, so the
    /// transaction waits for them (up to ``largestOwnAhead``) rather than read the history each
    /// time. The last of them to finish, or a gap no save of the container is left to fill, reads
    /// the transactions in between and records the ones other containers and processes made in
    /// the log. Returns whether there were any.
    func noteOwnTransaction(_ id: Int64, inStoreAt index: Int, into log: SaveLog, stores: [StoreSlot], source: ObjectIdentifier) throws -> Bool {
        try positions.withValue { positions in
            positions[index].savesInFlight = max(positions[index].savesInFlight - 1, 0)
            if id <= positions[index].lastSeen { return false }   // a concurrent save's look already read past it
            if id == positions[index].lastSeen + 1 && positions[index].ownAhead.isEmpty {
                // The next transaction, with none of this container's waiting past a gap: the
                // common case, without hashing it into the set and out again.
                positions[index].lastSeen = id
                return false
            }
            positions[index].ownAhead.insert(id)
            positions[index].advanceOverOwn()
            if positions[index].ownAhead.isEmpty { return false }
            if positions[index].savesInFlight > 0 && positions[index].ownAhead.count <= Self.largestOwnAhead { return false }
            let slot = stores[index]
            var found = false
            for transaction in try slot.historyTransactions(after: positions[index].lastSeen) {
                positions[index].seen(through: transaction.id)
                guard transaction.origin != origin else { continue }
                log.record(Self.changes(transaction, store: slot.store.identifier), from: source)
                found = true
            }
            return found
        }
    }

    private static func changes(_ transaction: StoreHistoryTransaction, store: String) -> ModelContext.SavedChanges {
        var inserted: [PersistentIdentifier] = []
        var updated: [PersistentIdentifier] = []
        var deleted: [PersistentIdentifier] = []
        var location: _ModelLocation?
        for change in transaction.changes {
            let changeLocation = _ModelLocation.reusing(location, entityName: change.entityName, storeIdentifier: store)
            location = changeLocation
            let id = PersistentIdentifier(location: changeLocation, key: .permanent(change.key))
            switch change.kind {
            case .insert: inserted.append(id)
            case .update: updated.append(id)
            case .delete: deleted.append(id)
            }
        }
        return ModelContext.SavedChanges(insertedIdentifiers: inserted, updatedIdentifiers: updated, deletedIdentifiers: deleted)
    }
}
