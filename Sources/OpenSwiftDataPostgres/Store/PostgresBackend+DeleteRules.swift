import OpenSwiftData
import PostgresNIO

extension PostgresBackend: DeleteRuleApplyingStore {
    /// Rows one statement is to delete: the rows of a table a condition on `t0` selects.
    private struct Wave {
        let table: PostgresTable
        let condition: String
        let bindings: PostgresBindings
    }

    /// Deletes the rows the batch deletes select and the rows `changes.deletes` names, applying
    /// the delete rules of every deleted row (``PostgresDeleteRules``). Runs inside the save's
    /// transaction, before its other writes; throws (and the save rolls back) when a `.deny` rule
    /// blocks. Returns the deleted keys of each entity that lost rows, in the order they went.
    func deleteApplyingRules(_ changes: StoreChanges, history: inout HistoryLog, on session: PostgresSession) throws -> [(entity: Schema.Entity, keys: [Int64])] {
        var waves: [Wave] = []
        for (entity, filter) in changes.batchDeletes {
            let table = try table(for: entity.name)
            var compiler = PostgresCompiler(table: table)
            let condition = try filter.map { try compiler.condition($0) } ?? "TRUE"
            waves.append(Wave(table: table, condition: condition, bindings: compiler.bindings))
        }
        for (entity, keys) in Self.deletesByEntity(changes) {
            var bindings = PostgresBindings()
            bindings.append(keys)
            waves.append(Wave(table: try table(for: entity.name), condition: "t0.\(PostgresSQL.primaryKey) = ANY($1::int8[])", bindings: bindings))
        }
        var deleted: [(entity: Schema.Entity, keys: [Int64])] = []
        var position: [String: Int] = [:]
        // The `.deny` relationships of deleted rows, checked once every wave has run.
        var denials: [(edge: PostgresDeleteRules.Edge, entity: Schema.Entity, values: [Int64])] = []
        var next = 0
        while next < waves.count {
            let wave = waves[next]
            next += 1
            let table = wave.table
            guard let rules = deleteRules[table.entity.name] else {
                throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, reason: "\(table.entity.name) is not in the container's schema")
            }
            let delete = "DELETE FROM \(table.table) AS t0 WHERE \(wave.condition) RETURNING "
            let keys: [Int64]
            let readers: [PostgresRowReader]
            if rules.returnsKeysOnly {
                // Only the keys: one array, not a row per deleted row.
                keys = try session.returnedKeys(delete + "\(PostgresSQL.primaryKey) AS k", wave.bindings)
                readers = []
            } else {
                readers = try session.query(delete + rules.returning, wave.bindings).map(PostgresRowReader.init)
                keys = readers.map { $0._int64(0) }
            }
            guard !keys.isEmpty else { continue }
            if position[table.entity.name] == nil {
                position[table.entity.name] = deleted.count
                deleted.append((table.entity, []))
            }
            deleted[position[table.entity.name] ?? 0].keys += keys
            if changes.recordsHistory, readers.isEmpty {
                history.delete(table.entity, keys: keys, preserved: [:])
            } else if changes.recordsHistory {
                for reader in readers {
                    let preserved = rules.preserved.isEmpty ? nil : try Self.preservedValues(of: table.entity, from: reader, at: rules.preserved)
                    history.delete(table.entity, key: reader._int64(0), preserved: preserved)
                }
            }
            for edge in rules.cascades + rules.denials {
                let values = Self.values(edge, keys: keys, readers: readers)
                guard !values.isEmpty else { continue }
                if edge.link.deleteRule == .deny {
                    denials.append((edge, table.entity, values))
                    continue
                }
                var bindings = PostgresBindings()
                bindings.append(values)
                for destination in edge.destinations {
                    waves.append(Wave(table: destination, condition: edge.condition, bindings: bindings))
                }
            }
        }
        for (edge, entity, values) in denials {
            var bindings = PostgresBindings()
            bindings.append(values)
            if try !session.query(PostgresDeleteRules.denyCheck(edge), bindings).isEmpty {
                throw SwiftDataError(.modelValidationFailure, reason: "\(entity.name).\(edge.link.name) has the delete rule .deny and still holds a \(edge.link.destinationName): delete or unlink the related models first. Nothing was saved; the context keeps its changes.")
            }
        }
        // References to the deleted rows, from rows that stay.
        for (entity, keys) in deleted {
            try removeReferences(to: keys, of: try table(for: entity.name), history: &history, recordsHistory: changes.recordsHistory, on: session)
        }
        return deleted
    }

    /// The keys an edge starts from: the deleted rows' own, or the values of their column.
    private static func values(_ edge: PostgresDeleteRules.Edge, keys: [Int64], readers: [PostgresRowReader]) -> [Int64] {
        guard case .ownColumn(let column) = edge.reach else { return keys }
        return readers.compactMap { $0._isNull(Int32(column)) ? nil : $0._int64(Int32(column)) }
    }
}
