extension SQLiteStore {
    /// Writes a save's updates by predicate, one `UPDATE` per table, and returns the keys of the
    /// rows each changed, as SQLite's update hook reports them in the statement's own pass.
    func writeBatchUpdates(
        _ changes: StoreChanges, history: inout HistoryLog, on connection: SQLiteConnection
    ) throws -> [[Int64]] {
        let eachRowOnce = changes.batchUpdatesChangeEachRowOnce
        var updated: [[Int64]] = []
        updated.reserveCapacity(changes.batchUpdates.count)
        for update in changes.batchUpdates {
            let layout = try layout(for: update.entity.name)
            guard let column = layout.columns[update.property] else {
                throw SwiftDataError(.storeFailure, reason: "\(update.entity.name).\(update.entity.fields[update.property].name) has no column in \(path).")
            }
            var compiler = SQLCompiler(layout: layout)
            // The new value is the first parameter, the filter's values follow it.
            let condition = update.filter.map { " WHERE " + compiler.sql($0) } ?? ""
            let statement = try connection.statement("UPDATE \(layout.table) SET \(column) = ?\(condition)")
            defer { statement.reset() }
            try PropertyEncoding.encode(update.value, property: update.property, of: update.entity, to: statement, at: 0)
            for (position, argument) in compiler.arguments.enumerated() {
                try statement.bind(argument, Int32(position + 1))
            }
            let keys = try connection.collectingUpdatedRowIDs { try statement.run() }
            if changes.recordsHistory {
                history.update(update.entity, keys: keys, mask: 1 << UInt64(update.property), mayRepeat: !eachRowOnce)
            }
            updated.append(keys)
        }
        return updated
    }
}
