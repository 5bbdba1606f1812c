import OpenSwiftData
import PostgresNIO

extension PostgresBackend {
    /// Deletes the rows the batch deletes select and the rows `changes.deletes` names, applying
    /// the delete rules of every doomed row (``PostgresDeleteRules``). Runs inside the save's
    /// transaction, before its other writes; throws (and the save rolls back) when a `.deny` rule
    /// blocks. Returns the deleted keys of each entity that lost rows, by table name.
    func deleteApplyingRules(_ changes: StoreChanges, history: inout HistoryLog, on session: PostgresSession) throws -> [(entity: Schema.Entity, keys: [Int64])] {
        let rules = deleteRules
        try session.execute(PostgresDeleteRules.createSQL)
        try session.execute(PostgresDeleteRules.clearSQL)
        for (entity, filter) in changes.batchDeletes {
            let table = try table(for: entity.name)
            var compiler = PostgresCompiler(table: table)
            let condition = try filter.map { " WHERE " + (try compiler.condition($0)) } ?? ""
            try session.query(rules.seedSQL(table, condition: condition), compiler.bindings)
        }
        if !changes.deletes.isEmpty {
            var bindings = PostgresBindings()
            bindings.append(changes.deletes.map { rules.hierarchies[$0.entity.root.name] ?? -1 })
            bindings.append(changes.deletes.map(\.primaryKey))
            try session.query(PostgresDeleteRules.seedKeysSQL, bindings)
        }
        if let cascade = rules.cascadeSQL {
            var wave: Int32 = 0
            while true {
                var bindings = PostgresBindings()
                bindings.append(wave + 1)
                bindings.append(wave)
                let added = try session.query(cascade, bindings).first.map { PostgresRowReader($0)._int64(0) } ?? 0
                guard added > 0 else { break }
                wave += 1
            }
        }
        if let deny = rules.denySQL, let row = try session.query(deny).first {
            let position = Int(PostgresRowReader(row)._int64(0))
            if rules.denyChecks.indices.contains(position) {
                let (entity, link) = rules.denyChecks[position]
                throw SwiftDataError(.modelValidationFailure, reason: "\(entity.name).\(link.name) has the delete rule .deny and still holds a \(link.destinationName): delete or unlink the related models first. Nothing was saved; the context keeps its changes.")
            }
        }
        var preserved: [String: [Int64: [String: SnapshotValue]]] = [:]
        if changes.recordsHistory {
            for entity in rules.deletedEntities {
                let table = try table(for: entity.name)
                preserved[entity.name] = try preservedValues(table, condition: " WHERE t0.\(PostgresSQL.primaryKey) IN \(rules.doomed(entity))", bindings: PostgresBindings(), on: session)
            }
        }
        var deleted = [[Int64]](repeating: [], count: rules.deletedEntities.count)
        for row in try session.query(rules.deleteSQL) {
            let reader = PostgresRowReader(row)
            let position = Int(reader._int64(0))
            if deleted.indices.contains(position) { deleted[position].append(reader._int64(1)) }
        }
        var result: [(entity: Schema.Entity, keys: [Int64])] = []
        for (entity, keys) in zip(rules.deletedEntities, deleted) where !keys.isEmpty {
            let keys = keys.sorted()
            result.append((entity, keys))
            if changes.recordsHistory {
                for key in keys { history.delete(entity, key: key, preserved: preserved[entity.name]?[key]) }
            }
        }
        // References to the deleted rows, from rows that stay.
        for (entity, keys) in result {
            try removeReferences(to: keys, of: try table(for: entity.name), on: session)
        }
        return result
    }
}
