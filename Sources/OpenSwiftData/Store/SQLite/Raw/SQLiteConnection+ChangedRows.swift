import CSQLite

/// The row ids an update hook saw deleted or updated.
private final class ChangedRowCollector {
    let operation: Int32
    /// Appended to only by the hook, one call at a time, on the statement's thread; never held
    /// `inout` across a call, so it needs no run-time exclusivity check (one per deleted row).
    @exclusivity(unchecked) var rowIDs: [Int64] = []
    init(operation: Int32) { self.operation = operation }
}

extension SQLiteConnection {
    /// Runs `body` and returns the row ids of the rows it deleted, as SQLite's update hook reports
    /// them: in the same pass as the delete, with no extra query. `body` must not delete through
    /// SQLite's truncate optimization (a `DELETE` without a `WHERE` clause), which bypasses the hook.
    func collectingDeletedRowIDs(_ body: () throws -> Void) rethrows -> [Int64] {
        try collectingRowIDs(of: SQLITE_DELETE, body)
    }

    /// Runs `body` and returns the row ids of the rows it updated, as SQLite's update hook reports
    /// them (rows of rowid tables only).
    func collectingUpdatedRowIDs(_ body: () throws -> Void) rethrows -> [Int64] {
        try collectingRowIDs(of: SQLITE_UPDATE, body)
    }

    private func collectingRowIDs(of operation: Int32, _ body: () throws -> Void) rethrows -> [Int64] {
        let collector = ChangedRowCollector(operation: operation)
        let context = Unmanaged.passUnretained(collector).toOpaque()
        sqlite3_update_hook(handle, { context, operation, _, _, rowID in
            guard let context else { return }
            let collector = Unmanaged<ChangedRowCollector>.fromOpaque(context).takeUnretainedValue()
            if operation == collector.operation { collector.rowIDs.append(rowID) }
        }, context)
        defer { sqlite3_update_hook(handle, nil, nil) }
        try withExtendedLifetime(collector) { try body() }
        return collector.rowIDs
    }
}
