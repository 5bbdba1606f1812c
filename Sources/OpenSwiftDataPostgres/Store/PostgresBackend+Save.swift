import Foundation
import OpenSwiftData
import PostgresNIO

extension PostgresBackend {
    /// Writes the changes in one transaction. On any error nothing is written, and new models
    /// keep no key.
    ///
    /// An inserted model whose values of a uniqueness constraint match an existing row updates that
    /// row instead (an upsert); matching two different rows is a uniqueness conflict.
    ///
    /// A save that lost a race with another connection (a deadlock, or a unique key another
    /// process inserted first) was rolled back by the server; it runs again, up to four more
    /// times, and then sees the other connection's rows (the insert becomes an upsert).
    func save(_ changes: StoreChanges) throws -> StoreSaveResult {
        guard !isReadOnly else {
            throw SwiftDataError(.storeIsReadOnly, reason: "The configuration of \(location.displayName) does not allow saves.")
        }
        if changes.recordsHistory, let author = changes.author, !PostgresSQL.canHold(author) {
            throw SwiftDataError(.modelValidationFailure, reason: "The context's author \(author.debugDescription) contains U+0000 (NUL), which PostgreSQL text cannot hold, so the history cannot record it. Nothing was saved; the context keeps its changes.")
        }
        // A save waits for the store's own connection, with the other saves: a model actor's
        // read meanwhile takes this job's place and a reader.
        ModelExecutorLane.stepAsideForRunningJob()
        try settleEarlierSave(of: changes)
        var attempt = 1
        while true {
            do {
                let result: StoreSaveResult
                if let pending = try pendingSave(changes), let model = changes.inserts.first?.model {
                    result = try save(pending, of: model)
                } else {
                    result = try transaction { session in try write(changes, on: session) }
                }
                // Committed: a reader that sees this number knows it is no other connection's.
                if let number = result.historyTransaction { sightings.saved(number) }
                return result
            } catch let error as SwiftDataError {
                for (_, model) in changes.inserts { model._osdState.primaryKey = 0 }
                if PostgresFailure.isIndexEntryTooLarge(error) { throw indexEntryTooLarge(error, in: changes) }
                guard attempt < 5, PostgresFailure.isLostRace(error) else { throw error }
                attempt += 1
            } catch {
                for (_, model) in changes.inserts { model._osdState.primaryKey = 0 }
                throw error
            }
        }
    }

    private func write(_ changes: StoreChanges, on session: PostgresSession) throws -> StoreSaveResult {
        var history = HistoryLog()
        let recordsHistory = changes.recordsHistory
        var batchDeleted: [[Int64]] = []
        var ruleDeleted: [(entity: Schema.Entity, keys: [Int64])] = []
        if changes.appliesDeleteRules {
            ruleDeleted = try deleteApplyingRules(changes, history: &history, on: session)
            batchDeleted = changes.batchDeletes.map { entity, _ in ruleDeleted.first { $0.entity === entity }?.keys ?? [] }
        }
        for (entity, filter) in changes.batchDeletes where !changes.appliesDeleteRules {
            let table = try table(for: entity.name)
            var compiler = PostgresCompiler(table: table)
            let condition = try filter.map { try compiler.condition($0) } ?? "TRUE"
            let (keys, preserved) = try deleteRows(table, where: condition, compiler.bindings, preserving: recordsHistory, on: session)
            try removeReferences(to: keys, of: table, history: &history, recordsHistory: recordsHistory, on: session)
            batchDeleted.append(keys)
            if recordsHistory { history.delete(entity, keys: keys, preserved: preserved) }
        }
        // Deletions of one entity go ten thousand keys to a statement, each entity's in the order given.
        for (entity, allKeys) in changes.appliesDeleteRules ? [] : Self.deletesByEntity(changes) {
            let table = try table(for: entity.name)
            for start in stride(from: 0, to: allKeys.count, by: 10_000) {
                let keys = Array(allKeys[start..<min(start + 10_000, allKeys.count)])
                var bindings = PostgresBindings()
                bindings.append(keys)
                let (deletedKeys, preserved) = try deleteRows(
                    table, where: "t0.\(PostgresSQL.primaryKey) = ANY($1::int8[])", bindings, preserving: recordsHistory, on: session)
                let deleted = Set(deletedKeys)
                // A row a batch delete of this save removed is recorded once.
                var seen: Set<Int64> = []
                let removed = keys.filter { deleted.contains($0) && seen.insert($0).inserted }
                if recordsHistory { history.delete(entity, keys: removed, preserved: preserved) }
                try removeReferences(to: removed, of: table, history: &history, recordsHistory: recordsHistory, on: session)
            }
        }
        var deferred: [(table: PostgresTable, model: any PersistentModel, links: [(parameter: Int32, target: any PersistentModel)])] = []
        let links = _DeferredLinks()
        var keys = [Int64](repeating: 0, count: changes.inserts.count)
        var upserted: [Int] = []
        // Rows of entities without uniqueness constraints take keys drawn ahead and are written many
        // to a statement, without waiting; rows among them that refer to each other then need no
        // second pass.
        let batched = try reserveKeys(for: changes.inserts, on: session)
        for (position, (entity, model)) in changes.inserts.enumerated() where !batched.contains(position) {
            let table = try table(for: entity.name)
            let values = PostgresParameters(entity: entity)
            try PropertyEncoding.encodeAll(model, of: table.entity, properties: table.shape.storedProperties, to: values, deferring: links)
            let stored = table.shape.storedProperties
            if table.upsertLookupSQL != nil, let existing = try existingRow(values, table: table, on: session) {
                try session.send(table.fullUpdateSQL, values.bindings(stored, then: [existing]))
                if !links.isEmpty { deferred.append((table, model, links.take())) }
                model._osdState.primaryKey = existing
                keys[position] = existing
                upserted.append(position)
                continue
            }
            // A new row: its key drawn ahead, so that the insert waits for no answer (the next
            // look-up or the commit carries it to the server). Drawn only now, once the row is
            // known to be new: an earlier model relating to this one has deferred its link.
            guard let key = try keyPool.take(1, from: table.keySequence, on: session).first else {
                throw SwiftDataError(.storeFailure, reason: "PostgreSQL handed out no key for a new \(entity.name). Nothing was saved.")
            }
            try sendInsert(values, key: key, into: table, on: session)
            if !links.isEmpty { deferred.append((table, model, links.take())) }
            model._osdState.primaryKey = key
            keys[position] = key
        }
        if !batched.isEmpty {
            deferred += try writeBatched(changes.inserts, positions: batched, keys: &keys, on: session)
        }
        if recordsHistory {
            let upserts = upserted.sorted()
            for position in upserts {
                let entity = changes.inserts[position].entity
                let stored = try table(for: entity.name).shape.storedProperties
                history.updateByStore(entity, key: keys[position], mask: stored.reduce(0) { $0 | 1 << UInt64($1) })
            }
            history.insert(changes.inserts.lazy.map(\.entity), keys: keys, skipping: upserts)
        }
        for (table, model, links) in deferred {
            for (parameter, target) in links where table.columns[Int(parameter)] != nil
                && target._osdState.primaryKey != 0 && !target._osdState.isDeleted {
                var bindings = PostgresBindings()
                bindings.append(target._osdState.primaryKey)
                bindings.append(model._osdState.primaryKey)
                try session.send("UPDATE \(table.table) SET \(table.column(Int(parameter))) = $1 WHERE \(PostgresSQL.primaryKey) = $2", bindings)
            }
        }
        // Runs of updates to the same properties of one entity go a thousand rows to a statement.
        var batch: UpdateBatch?
        func flush() throws {
            if let pending = batch, pending.rows > 0 {
                try session.send(pending.table.batchUpdateSQL(properties: pending.properties, rows: pending.rows), pending.bindings)
            }
            batch = nil
        }
        for (entity, model, mask) in changes.updates {
            if recordsHistory { history.update(entity, key: model._osdState.primaryKey, mask: mask) }
            let table = try table(for: entity.name)
            let properties = table.shape.storedProperties.filter { mask & (1 << UInt64($0)) != 0 }
            guard !properties.isEmpty else { continue }
            if let pending = batch, pending.table !== table || pending.properties != properties || pending.rows >= table.batchRows {
                try flush()
            }
            let values = PostgresParameters(entity: entity)
            for property in properties {
                try PropertyEncoding.encode(model, property: property, of: table.entity, to: values, at: Int32(property), deferring: links)
            }
            // Every related model already has its key: inserts ran first.
            _ = links.take()
            var current = batch ?? UpdateBatch(table: table, properties: properties)
            batch = nil   // one owner of the bindings, so that appending does not copy them
            current.bindings.append(model._osdState.primaryKey)
            values.append(properties, to: &current.bindings)
            current.rows += 1
            batch = current
        }
        try flush()
        for (link, owner, targets) in changes.linkWrites {
            let ownerTable = try table(for: link.entity)
            let name = ownerTable.linkTable(link)
            var clear = PostgresBindings()
            clear.append(owner._osdState.primaryKey)
            try session.send("DELETE FROM \(name) WHERE owner = $1", clear)
            let keys = targets.filter { $0._osdState.primaryKey != 0 && !$0._osdState.isDeleted }.map(\._osdState.primaryKey)
            guard !keys.isEmpty else { continue }
            var add = PostgresBindings()
            add.append(owner._osdState.primaryKey)
            add.append(keys)
            try session.send("INSERT INTO \(name) (owner, target) SELECT $1, unnest($2::int8[]) ON CONFLICT DO NOTHING", add)
        }
        var result = StoreSaveResult(inserted: keys, upserted: upserted, batchDeleted: batchDeleted)
        result.ruleDeleted = ruleDeleted
        if !changes.batchUpdates.isEmpty {
            result.batchUpdated = try writeBatchUpdates(changes, history: &history, on: session)
        }
        if recordsHistory, !history.isEmpty {
            // The last statement: the COMMIT follows it without a wait.
            result.historyTransaction = try record(
                history, author: changes.author, origin: changes.origin, inserted: changes.inserts.map(\.model), on: session)
        }
        return result
    }

    /// The keys `changes.deletes` names, grouped by entity in the order the entities first appear.
    static func deletesByEntity(_ changes: StoreChanges) -> [(entity: Schema.Entity, keys: [Int64])] {
        var grouped: [(entity: Schema.Entity, keys: [Int64])] = []
        var position: [String: Int] = [:]
        for (entity, key) in changes.deletes {
            if position[entity.name] == nil {
                position[entity.name] = grouped.count
                grouped.append((entity, []))
            }
            grouped[position[entity.name] ?? 0].keys.append(key)
        }
        return grouped
    }

    /// Updates of the same properties of one entity, written by one statement.
    private struct UpdateBatch {
        let table: PostgresTable
        let properties: [Int]
        var rows = 0
        var bindings = PostgresBindings()
    }

    /// Gives every insert of an entity without uniqueness constraints its key, from the keys
    /// drawn ahead from its hierarchy's sequence; returns their positions.
    private func reserveKeys(for inserts: [(entity: Schema.Entity, model: any PersistentModel)], on session: PostgresSession) throws -> Set<Int> {
        var positionsBySequence: [String: [Int]] = [:]
        for (position, (entity, _)) in inserts.enumerated() {
            let table = try table(for: entity.name)
            if table.upsertLookupSQL == nil { positionsBySequence[table.keySequence, default: []].append(position) }
        }
        for (sequence, positions) in positionsBySequence {
            let keys = try keyPool.take(positions.count, from: sequence, on: session)
            for (position, key) in zip(positions, keys) { inserts[position].model._osdState.primaryKey = key }
        }
        return Set(positionsBySequence.values.joined())
    }

    /// Writes the inserts at `positions`, whose models hold their keys, many rows to a statement;
    /// returns the to-one relationships to models that had no key yet.
    private func writeBatched(
        _ inserts: [(entity: Schema.Entity, model: any PersistentModel)], positions: Set<Int>, keys: inout [Int64], on session: PostgresSession
    ) throws -> [(table: PostgresTable, model: any PersistentModel, links: [(parameter: Int32, target: any PersistentModel)])] {
        var deferred: [(table: PostgresTable, model: any PersistentModel, links: [(parameter: Int32, target: any PersistentModel)])] = []
        var byTable: [String: [Int]] = [:]
        for position in positions.sorted() { byTable[inserts[position].entity.name, default: []].append(position) }
        let links = _DeferredLinks()
        for (name, rows) in byTable.sorted(by: { $0.key < $1.key }) {
            let table = try table(for: name)
            let stored = table.shape.storedProperties
            if rows.count == 1, let position = rows.first {
                // One row: a prepared statement.
                let model = inserts[position].model
                let values = PostgresParameters(entity: table.entity)
                try PropertyEncoding.encodeAll(model, of: table.entity, properties: table.shape.storedProperties, to: values, deferring: links)
                if !links.isEmpty { deferred.append((table, model, links.take())) }
                keys[position] = model._osdState.primaryKey
                try sendInsert(values, key: keys[position], into: table, on: session)
                continue
            }
            for chunk in stride(from: 0, to: rows.count, by: table.batchRows).map({ rows[$0..<min($0 + table.batchRows, rows.count)] }) {
                var bindings = PostgresBindings(capacity: chunk.count * (stored.count + 1))
                for position in chunk {
                    let model = inserts[position].model
                    let values = PostgresParameters(entity: table.entity)
                    try PropertyEncoding.encodeAll(model, of: table.entity, properties: table.shape.storedProperties, to: values, deferring: links)
                    if !links.isEmpty { deferred.append((table, model, links.take())) }
                    keys[position] = model._osdState.primaryKey
                    bindings.append(keys[position])
                    values.append(stored, to: &bindings)
                }
                try session.send(table.batchInsertSQL(rows: chunk.count), bindings)
            }
        }
        return deferred
    }

    /// Queues the insert of one row whose key was drawn ahead: a prepared statement, or a parsed one
    /// for values a prepared statement's arguments cannot carry.
    private func sendInsert(_ values: PostgresParameters, key: Int64, into table: PostgresTable, on session: PostgresSession) throws {
        let stored = table.shape.storedProperties
        if let arguments = values.arguments(after: key, stored) {
            try session.send(.prepared(table.preparedInsertSQL, arguments))
        } else {
            var bindings = PostgresBindings(capacity: stored.count + 1)
            bindings.append(key)
            values.append(stored, to: &bindings)
            try session.send(table.batchInsertSQL(rows: 1), bindings)
        }
    }

    /// Removes every reference to deleted rows: foreign keys pointing at them become NULL, their
    /// link-table rows go.
    /// When the save keeps history, each row whose relationship became NULL is recorded as an
    /// update of that relationship.
    func removeReferences(to keys: [Int64], of table: PostgresTable, history: inout HistoryLog, recordsHistory: Bool, on session: PostgresSession) throws {
        guard let statements = referenceCleanup[table.entity.name], !keys.isEmpty else { return }
        for cleanup in statements {
            var bindings = PostgresBindings()
            bindings.append(keys)
            guard recordsHistory, let (entity, property) = cleanup.nullified else {
                try session.query(cleanup.sql, bindings)
                continue
            }
            for row in try session.query(cleanup.sql + " RETURNING \(PostgresSQL.primaryKey)", bindings) {
                history.updateByStore(entity, key: PostgresRowReader(row)._int64(0), mask: 1 << UInt64(property))
            }
        }
    }

    /// The row an inserted model's uniqueness-constraint values already name, if any.
    private func existingRow(_ values: PostgresParameters, table: PostgresTable, on session: PostgresSession) throws -> Int64? {
        guard let sql = table.upsertLookupSQL else { return nil }
        let rows = Set(try session.query(sql, values.bindings(table.uniqueKeyAttributes)).map { PostgresRowReader($0)._int64(0) })
        guard rows.count <= 1 else {
            throw SwiftDataError(.uniquenessConflict, reason: "A new \(table.entity.name) matches \(rows.count) different stored rows on its uniqueness constraints \(table.entity.uniquenessConstraints); it can update only one. Nothing was saved.")
        }
        return rows.first
    }
}
