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
    }

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
                positions[index].lastSeen = last
                for transaction in transactions where transaction.origin != origin {
                    log.record(Self.changes(transaction, store: slot.store.identifier), from: source)
                    found = true
                }
            }
            return found
        }
    }

    /// Takes note of a transaction this container just recorded in the store at `index`. When it
    /// directly follows the last one seen, nothing else committed in between and nothing is read
    /// (the cheap path of every save); otherwise the transactions in between are read and the ones
    /// other containers and processes made are recorded in the log. Returns whether there were any.
    func noteOwnTransaction(_ id: Int64, inStoreAt index: Int, into log: SaveLog, stores: [StoreSlot], source: ObjectIdentifier) throws -> Bool {
        try positions.withValue { positions in
            let lastSeen = positions[index].lastSeen
            if id <= lastSeen { return false }   // a concurrent save's look already read past it
            if id == lastSeen + 1 {
                positions[index].lastSeen = id
                return false
            }
            let slot = stores[index]
            var found = false
            for transaction in try slot.historyTransactions(after: lastSeen) {
                positions[index].lastSeen = max(positions[index].lastSeen, transaction.id)
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
