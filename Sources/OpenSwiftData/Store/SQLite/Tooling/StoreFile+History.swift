/// The history of a store file as tools read it: every recorded save, and the property lists its
/// update masks refer to.
extension StoreFile {
    /// Calls `body` with the store's history transactions after transaction `after`, oldest first
    /// (or newest first), saved by `author` only when it is given, until `body` returns `false`.
    ///
    /// - Throws: ``SwiftDataError/storeIsCorrupt`` for a transaction whose changes cannot be read.
    package func forEachHistoryTransaction(
        after: Int64, author: String? = nil, newestFirst: Bool = false, _ body: (StoreHistoryTransaction) throws -> Bool
    ) throws {
        guard try integer("SELECT count(*) FROM sqlite_master WHERE name = 'osd_history'") == 1 else { return }
        var sql = "SELECT \(StoreHistoryTransaction.rowColumns) FROM osd_history WHERE deleted = 0 AND id > ?"
        var arguments: [StoredValue] = [.integer(after)]
        if let author {
            sql += " AND author = ?"
            arguments.append(.text(author))
        }
        sql += newestFirst ? " ORDER BY id DESC" : " ORDER BY id"
        try translatingErrors {
            let statement = try connection.uncachedStatement(sql)
            try statement.bind(arguments)
            while try statement.step() {
                guard try body(StoreHistoryTransaction(row: statement, place: path)) else { return }
            }
        }
    }

    /// The property lists the history's update masks refer to; none in a store written before
    /// they were recorded and not opened for saving since.
    package func historyFieldLayouts() throws -> HistoryFieldLayouts {
        try SQLiteStore.historyFields(connection, path: path)
    }
}
