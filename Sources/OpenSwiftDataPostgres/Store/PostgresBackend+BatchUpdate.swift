import OpenSwiftData
import PostgresNIO

extension PostgresBackend: BatchUpdatingStore {
    /// Writes a save's updates by predicate, one `UPDATE` per table, and returns the keys of the
    /// rows each changed (gathered server-side into one array).
    func writeBatchUpdates(
        _ changes: StoreChanges, history: inout HistoryLog, on session: PostgresSession
    ) throws -> [[Int64]] {
        let eachRowOnce = changes.batchUpdatesChangeEachRowOnce
        var updated: [[Int64]] = []
        updated.reserveCapacity(changes.batchUpdates.count)
        for update in changes.batchUpdates {
            let table = try table(for: update.entity.name)
            var compiler = PostgresCompiler(table: table)
            let condition = try update.filter.map { try compiler.condition($0) } ?? "TRUE"
            // The new values are the last parameters, in order, after the filter's.
            var bindings = compiler.bindings
            let values = PostgresParameters(entity: update.entity)
            var columns: [String] = []
            for assignment in update.assignments {
                let property = assignment.property
                guard let column = table.columns[property], let storage = update.entity.fields[property].storage else {
                    throw SwiftDataError(.storeFailure, reason: "\(update.entity.name).\(update.entity.fields[property].name) has no column in \(location.displayName).")
                }
                try PropertyEncoding.encode(assignment.value, property: property, of: update.entity, to: values, at: Int32(property))
                columns.append("\(column) = $\(bindings.count + columns.count + 1)::\(PostgresSQL.parameterType(storage))")
            }
            values.append(update.assignments.map(\.property), to: &bindings)
            let keys = try session.returnedKeys(
                "UPDATE \(table.table) AS t0 SET \(columns.joined(separator: ", ")) WHERE \(condition) RETURNING t0.\(PostgresSQL.primaryKey) AS k", bindings)
            if changes.recordsHistory {
                history.update(update.entity, keys: keys, mask: update.mask, mayRepeat: !eachRowOnce)
            }
            updated.append(keys)
        }
        return updated
    }
}
