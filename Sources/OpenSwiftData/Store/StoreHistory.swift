import Foundation

/// One save as a store's history records it: who saved, when, and what changed.
package struct StoreHistoryTransaction: Sendable {
    /// The transaction's number: increasing with each save, never reused.
    package let id: Int64
    package let timestamp: Date
    package let author: String?
    package let bundleIdentifier: String
    package let processIdentifier: String
    /// The container that saved, as ``StoreChanges/origin`` named it.
    package let origin: Int64
    package let changes: [StoreHistoryChange]

    package init(
        id: Int64, timestamp: Date, author: String?, bundleIdentifier: String, processIdentifier: String, origin: Int64,
        changes: [StoreHistoryChange]
    ) {
        self.id = id
        self.timestamp = timestamp
        self.author = author
        self.bundleIdentifier = bundleIdentifier
        self.processIdentifier = processIdentifier
        self.origin = origin
        self.changes = changes
    }
}

extension StoreHistoryTransaction {
    /// The columns of a history row that ``init(row:place:)`` reads, in its order, as a
    /// statement's select list: every store's history table has them.
    package static let rowColumns = "id, timestamp, author, bundle, process, origin, changes"

    /// The transaction of a history row read by either store, its columns ``rowColumns`` in that
    /// order.
    ///
    /// - Throws: ``SwiftDataError/storeIsCorrupt`` naming the transaction and `place` when its
    ///   changes cannot be read.
    package init(row: some _RowReader, place: String) throws {
        let id = row._int64(0)
        let changes = row._isNull(6) ? [] : row._withBytes(6) { HistoryLog.decode($0) }
        guard let changes else {
            throw SwiftDataError(.storeIsCorrupt, reason: "The history of \(place) has an unreadable transaction \(id).")
        }
        self.init(
            id: id, timestamp: Date(timeIntervalSinceReferenceDate: try row._double(1)),
            author: row._isNull(2) ? nil : row._string(2), bundleIdentifier: row._string(3),
            processIdentifier: row._string(4), origin: row._int64(5), changes: changes)
    }
}

/// One model's change within a saved transaction.
package struct StoreHistoryChange: Sendable {
    package enum Kind: Int64, Sendable {
        case insert = 0, update = 1, delete = 2
    }

    package let kind: Kind
    package let entityName: String
    package let key: Int64
    /// For an update, one bit per changed property.
    package let changedProperties: UInt64
    /// For a deletion, the values of the entity's attributes marked `.preserveValueOnDeletion`.
    package let preservedValues: [String: SnapshotValue]
}
