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
            let columns = try update.assignments.map { assignment in
                guard let column = layout.columns[assignment.property] else {
                    throw SwiftDataError(.storeFailure, reason: "\(update.entity.name).\(update.entity.fields[assignment.property].name) has no column in \(path).")
                }
                return "\(column) = ?"
            }
            var compiler = SQLCompiler(layout: layout)
            // The new values are the first parameters, in order; the filter's values follow them.
            let condition = update.filter.map { " WHERE " + compiler.sql($0) } ?? ""
            let statement = try connection.statement("UPDATE \(layout.table) SET \(columns.joined(separator: ", "))\(condition)")
            defer { statement.reset() }
            for (position, assignment) in update.assignments.enumerated() {
                try PropertyEncoding.encode(assignment.value, property: assignment.property, of: update.entity, to: statement, at: Int32(position))
            }
            for (position, argument) in compiler.arguments.enumerated() {
                try statement.bind(argument, Int32(update.assignments.count + position))
            }
            let keys = try connection.collectingUpdatedRowIDs { try statement.run() }
            if changes.recordsHistory {
                history.update(update.entity, keys: keys, mask: update.mask, mayRepeat: !eachRowOnce)
            }
            updated.append(keys)
        }
        return updated
    }
}
