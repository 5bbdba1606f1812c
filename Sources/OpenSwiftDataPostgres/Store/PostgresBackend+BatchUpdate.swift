import OpenSwiftData
import PostgresNIO

extension PostgresBackend {
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
            guard let column = table.columns[update.property], let storage = update.entity.fields[update.property].storage else {
                throw SwiftDataError(.storeFailure, reason: "\(update.entity.name).\(update.entity.fields[update.property].name) has no column in \(location.displayName).")
            }
            var compiler = PostgresCompiler(table: table)
            let condition = try update.filter.map { try compiler.condition($0) } ?? "TRUE"
            // The new value is the last parameter, after the filter's.
            var bindings = compiler.bindings
            let values = PostgresParameters(entity: update.entity)
            try PropertyEncoding.encode(update.value, property: update.property, of: update.entity, to: values, at: Int32(update.property))
            values.append([update.property], to: &bindings)
            let value = "$\(bindings.count)::\(PostgresSQL.parameterType(storage))"
            let keys = try session.returnedKeys(
                "UPDATE \(table.table) AS t0 SET \(column) = \(value) WHERE \(condition) RETURNING t0.\(PostgresSQL.primaryKey) AS k", bindings)
            if changes.recordsHistory {
                history.update(update.entity, keys: keys, mask: 1 << UInt64(update.property), mayRepeat: !eachRowOnce)
            }
            updated.append(keys)
        }
        return updated
    }
}
