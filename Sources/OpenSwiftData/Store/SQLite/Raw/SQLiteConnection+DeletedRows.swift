import CSQLite

/// The row ids an update hook saw deleted.
private final class DeletedRowCollector {
    var rowIDs: [Int64] = []
}

extension SQLiteConnection {
    /// Runs `body` and returns the row ids of the rows it deleted, as SQLite's update hook reports
    /// them: in the same pass as the delete, with no extra query. `body` must not delete through
    /// SQLite's truncate optimization (a `DELETE` without a `WHERE` clause), which bypasses the hook.
    func collectingDeletedRowIDs(_ body: () throws -> Void) rethrows -> [Int64] {
        let collector = DeletedRowCollector()
        let context = Unmanaged.passUnretained(collector).toOpaque()
        sqlite3_update_hook(handle, { context, operation, _, _, rowID in
            guard operation == SQLITE_DELETE, let context else { return }
            Unmanaged<DeletedRowCollector>.fromOpaque(context).takeUnretainedValue().rowIDs.append(rowID)
        }, context)
        defer { sqlite3_update_hook(handle, nil, nil) }
        try withExtendedLifetime(collector) { try body() }
        return collector.rowIDs
    }
}
