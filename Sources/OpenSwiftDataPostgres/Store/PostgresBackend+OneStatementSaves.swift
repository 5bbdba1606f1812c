import Foundation
import OpenSwiftData
import PostgresNIO

/// Saves of one new model each, made by one statement and sent together. A server's requests
/// often save one new model each (a `PUT` of an upsert, a `POST` of a new row); made at the same
/// time through one container, they would each wait for the container's one connection and cross
/// to its event loop and back, one after the other. Instead each encodes its model on its own
/// thread and waits, and one of them at a time (``WaitingSaves``) sends every save waiting, each
/// with a key drawn for it, in one trip: the upserts of one entity as one statement
/// (``upsertBatchStatement(for:namespace:channel:rows:)``), every other save as a statement and a
/// transaction of its own (``PostgresSession/runSeparately(_:)``). If the upserts' statement fails,
/// they go again one statement each, and each succeeds or fails alone. A lost reply is settled by
/// each save's own history record, as if it had gone by itself.
extension PostgresBackend {
    /// The save of `changes` as one statement, waiting for its key: when they are one new model
    /// relating to no model without a key, the save keeps history and carries no other change or
    /// record, and the model's entity has one uniqueness constraint (an upsert,
    /// ``upsertRecordingStatement(for:namespace:channel:)``) or none (an insert). `nil` otherwise,
    /// for the caller to save them as any other. Encodes the model on the caller's thread, without
    /// the store's lock.
    func pendingSave(_ changes: StoreChanges) throws -> PendingSave? {
        guard ownsSession, changes.recordsHistory, changes.inserts.count == 1, changes.deletes.isEmpty, changes.batchDeletes.isEmpty,
              changes.updates.isEmpty, changes.linkWrites.isEmpty, changes.batchUpdates.isEmpty, changes.companionRecords == nil,
              let (entity, model) = changes.inserts.first else { return nil }
        let table = try table(for: entity.name)
        let kind: PendingSave.Kind
        let sql: String
        if let upsert = upsertRecordingSQL[entity.name] {
            (kind, sql) = (.upsert, upsert)
        } else if table.upsertLookupSQL == nil, let insert = recordSQLAfterInsert[table.preparedInsertSQL] {
            (kind, sql) = (.insert, insert)
        } else {
            return nil
        }
        let stored = table.shape.storedProperties
        let values = PostgresParameters(entity: entity)
        let links = _DeferredLinks()
        try PropertyEncoding.encodeAll(model, of: table.entity, properties: stored, to: values, deferring: links)
        // The key comes when the statement goes out (``PendingSave/statement(key:)``).
        guard links.isEmpty, var arguments = values.arguments(after: 0, stored) else { return nil }
        let token = Int64.random(in: .min ... .max)
        let changesArgument = arguments.count + 5
        arguments += Self.recordArguments(
            timestamp: Date().timeIntervalSinceReferenceDate, author: changes.author, origin: changes.origin, changes: ByteBuffer(), token: token)
        if kind == .upsert { arguments += upsertUpdateRecords[entity.name] ?? [] }
        return PendingSave(
            kind: kind, entity: entity, sequence: table.keySequence, sql: sql, arguments: arguments, changesArgument: changesArgument, token: token)
    }

    /// Saves `model` by its pending save, sent with every other one-statement save waiting for
    /// the store's connection.
    func save(_ pending: PendingSave, of model: any PersistentModel) throws -> StoreSaveResult {
        waitingSaves.add(pending)
        // Another save's trip may carry this one; otherwise this save sends every one waiting.
        if waitingSaves.waitForOutcomeOrTurn(pending) {
            var sent: [PendingSave] = []
            defer { waitingSaves.finishSending(sent) }
            withSession { session in sent = sendWaitingSaves(on: session) }
        }
        let transaction: Int64
        let key: Int64
        let isNew: Bool
        switch pending.outcome {
        case .success(let rows)?:
            guard let row = rows.first else {
                throw SwiftDataError(.storeFailure, reason: "PostgreSQL recorded no history transaction for a new \(pending.entity.name). Nothing was saved.")
            }
            let reader = PostgresRowReader(row)
            transaction = reader._int64(0)
            (key, isNew) = pending.kind == .upsert ? (reader._int64(2), reader._int64(3) == 1) : (pending.key, true)
        case .failure(let doubt as PostgresCommitInDoubt)?:
            (transaction, key, isNew) = try withSession { _ in
                let transaction = try settle(doubt, token: pending.token, inserted: [model])
                let (key, isNew) = pending.kind == .upsert ? try upsertedRow(recordedBy: transaction, entityName: pending.entity.name) : (pending.key, true)
                return (transaction, key, isNew)
            }
        case .failure(let error)?:
            throw withSession { _ in diagnosed(error) }
        case nil:
            throw SwiftDataError(.storeFailure, reason: "A save of a new \(pending.entity.name) was not sent to \(location.displayName). Nothing was saved; save again.")
        }
        model._osdState.primaryKey = key
        var result = StoreSaveResult(inserted: [key], upserted: isNew ? [] : [0], batchDeleted: [])
        result.historyTransaction = transaction
        return result
    }

    /// Sends every waiting save in one trip, each with a key drawn for it, and gives each its
    /// outcome. Upserts of one entity go as one statement (``upsertBatchStatement(for:namespace:channel:rows:)``);
    /// if that statement fails, they go again one statement each, in a second trip. Called with the
    /// store's lock held; returns the saves it sent.
    private func sendWaitingSaves(on session: PostgresSession) -> [PendingSave] {
        let waiting = waitingSaves.takeAll()
        do {
            var statements: [PostgresStatement] = []
            statements.reserveCapacity(waiting.count)
            for pending in waiting {
                guard let key = try keyPool.take(1, from: pending.sequence, on: session).first else {
                    throw SwiftDataError(.storeFailure, reason: "PostgreSQL handed out no key for a new \(pending.entity.name). Nothing was saved.")
                }
                statements.append(try pending.statement(key: key))
            }
            let (batches, alone) = try batchedUpserts(waiting, on: session)
            let outcomes = try session.runSeparately(batches.map(\.statement) + alone.map { statements[$0] })
            var again: [Int] = []
            for (batch, outcome) in zip(batches, outcomes) {
                switch outcome {
                case .success(let rows):
                    deliver(rows, of: batch.positions, to: waiting)
                case .failure(let doubt as PostgresCommitInDoubt):
                    for position in batch.positions { waiting[position].outcome = .failure(doubt) }
                case .failure:
                    // Nothing of the batch was written: each save goes alone, and fails alone.
                    again += batch.positions
                }
            }
            for (position, outcome) in zip(alone, outcomes.dropFirst(batches.count)) { waiting[position].outcome = outcome }
            if !again.isEmpty {
                for (position, outcome) in zip(again, try session.runSeparately(again.map { statements[$0] })) {
                    waiting[position].outcome = outcome
                }
            }
        } catch {
            // The rest were not sent: each fails with the reason.
            for pending in waiting where pending.outcome == nil { pending.outcome = .failure(error) }
        }
        return waiting
    }

    /// The waiting saves' upserts of one entity, two or more, as one statement for each
    /// ``largestUpsertBatch`` of them, prepared on the connection; and the positions of the saves
    /// that go alone (all of an entity whose statement the server would not prepare, which then go
    /// as they would without it).
    private func batchedUpserts(
        _ waiting: [PendingSave], on session: PostgresSession
    ) throws -> (batches: [(positions: [Int], statement: PostgresStatement)], alone: [Int]) {
        var byEntity: [String: [Int]] = [:]
        var alone: [Int] = []
        for (position, pending) in waiting.enumerated() {
            if pending.kind == .upsert, upsertBatches.entities.contains(pending.entity.name) {
                byEntity[pending.entity.name, default: []].append(position)
            } else {
                alone.append(position)
            }
        }
        var batches: [(positions: [Int], statement: PostgresStatement)] = []
        for (name, entityPositions) in byEntity.sorted(by: { $0.key < $1.key }) {
            for start in stride(from: 0, to: entityPositions.count, by: Self.largestUpsertBatch) {
                let positions = Array(entityPositions[start..<min(start + Self.largestUpsertBatch, entityPositions.count)])
                guard let sql = upsertBatches.sql(for: name, rows: positions.count),
                      let arguments = Self.upsertBatchArguments(positions.map { waiting[$0] }, table: try table(for: name)) else {
                    alone += positions
                    continue
                }
                let statement = PostgresStatement.prepared(sql, arguments)
                do {
                    try session.prepareAhead(statement, on: try session.currentConnection())
                } catch {
                    alone += positions
                    continue
                }
                batches.append((positions, statement))
            }
        }
        return (batches, alone.sorted())
    }

    /// Gives each save of a batch its row of the batch statement's answer (by the save's position
    /// in the batch). An answer that does not name every save once leaves each to learn from its
    /// history record's token what the server kept.
    private func deliver(_ rows: [PostgresRow], of positions: [Int], to waiting: [PendingSave]) {
        var delivered = Set<Int>()
        for row in rows {
            let order = Int(PostgresRowReader(row)._int64(4))
            guard order >= 1, order <= positions.count, delivered.insert(order).inserted else { continue }
            waiting[positions[order - 1]].outcome = .success([row])
        }
        guard delivered.count < positions.count else { return }
        let doubt = PostgresCommitInDoubt(
            failure: SwiftDataError(.storeFailure, reason: "PostgreSQL answered \(rows.count) rows for \(positions.count) saves."), process: nil, location: location)
        for position in positions { waiting[position].outcome = .failure(doubt) }
    }
}
