import Foundation
import OpenSwiftData
import PostgresNIO

/// The history of a PostgreSQL store as tools read it: every recorded save, and the property lists
/// its update masks refer to. The counterpart of the store file's.
extension PostgresStoreAccess {
    /// Calls `body` with the store's history transactions after transaction `after`, oldest first
    /// (or newest first), saved by `author` only when it is given, until `body` returns `false`.
    /// Read a thousand at a time, in the store's read transaction when it was opened for reading.
    ///
    /// - Throws: ``SwiftDataError/storeIsCorrupt`` for a transaction whose changes cannot be read.
    package func forEachHistoryTransaction(
        after: Int64, author: String? = nil, newestFirst: Bool = false, _ body: (StoreHistoryTransaction) throws -> Bool
    ) throws {
        // Each batch continues from the last transaction of the one before.
        var boundary: Int64? = nil
        while true {
            var bindings = PostgresBindings()
            bindings.append(after)
            var sql = "SELECT \(StoreHistoryTransaction.rowColumns) FROM \(quotedNamespace).osd_history WHERE id > $1"
            if let author {
                bindings.append(author)
                sql += " AND author = $\(bindings.count)"
            }
            if let boundary {
                bindings.append(boundary)
                sql += " AND id \(newestFirst ? "<" : ">") $\(bindings.count)"
            }
            sql += " ORDER BY id\(newestFirst ? " DESC" : "") LIMIT \(Self.batchRows)"
            let rows = try session.query(sql, bindings)
            for row in rows {
                let transaction = try StoreHistoryTransaction(row: PostgresRowReader(row), place: displayName)
                guard try body(transaction) else { return }
                boundary = transaction.id
            }
            if rows.count < Self.batchRows { return }
        }
    }

    /// The property lists the history's update masks refer to, read now; none in a store written
    /// before they were recorded and not opened for saving since.
    package func historyFieldLayouts() throws -> HistoryFieldLayouts {
        var bindings = PostgresBindings()
        bindings.append(HistoryFieldLayouts.metadataKey)
        guard let row = try session.query("SELECT value FROM \(quotedNamespace).osd_metadata WHERE key = $1", bindings).first else {
            return HistoryFieldLayouts()
        }
        return try HistoryFieldLayouts(json: PostgresRowReader(row)._string(0), place: displayName)
    }

    /// Ends the read-only transaction of a store opened for reading and begins another, which sees
    /// what other processes have committed since.
    package func readAgain() throws {
        guard !isWritable else { return }
        try session.execute("COMMIT")
        try session.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    }
}
