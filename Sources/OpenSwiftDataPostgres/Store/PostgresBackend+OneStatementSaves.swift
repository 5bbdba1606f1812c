import Foundation
import OpenSwiftData
import PostgresNIO

/// Saves of one new model each, made by one statement and sent together. A server's requests
/// often save one new model each (a `PUT` of an upsert, a `POST` of a new row); made at the same
/// time through one container, they would each wait for the container's one connection and cross
/// to its event loop and back, one after the other. Instead each encodes its model on its own
/// thread and waits, and whichever save gets the connection sends every save waiting, each with a
/// key drawn for it, in one trip. Each is still a statement and a transaction of its own
/// (``PostgresSession/runSeparately(_:)``): it succeeds or fails alone, and a lost reply is
/// settled by its own history record, as if it had gone by itself.
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
        if kind == .upsert {
            let updated = HistoryLog.oneUpdate(entityName: entity.name, mask: stored.reduce(0) { $0 | 1 << UInt64($1) })
            arguments += [
                PostgresData(type: .bytea, value: ByteBuffer(bytes: updated.beforeKey)),
                PostgresData(type: .bytea, value: ByteBuffer(bytes: updated.afterKey)),
            ]
        }
        return PendingSave(
            kind: kind, entity: entity, sequence: table.keySequence, sql: sql, arguments: arguments, changesArgument: changesArgument, token: token)
    }

    /// Saves `model` by its pending save, sent with every other one-statement save waiting for
    /// the store's connection.
    func save(_ pending: PendingSave, of model: any PersistentModel) throws -> StoreSaveResult {
        waitingSaves.add(pending)
        return try withSession { session in
            // Another save's thread may have sent this one with its own.
            if pending.outcome == nil { sendWaitingSaves(on: session) }
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
                transaction = try settle(doubt, token: pending.token, inserted: [model])
                (key, isNew) = pending.kind == .upsert ? try upsertedRow(recordedBy: transaction, entityName: pending.entity.name) : (pending.key, true)
            case .failure(let error)?:
                throw diagnosed(error)
            case nil:
                throw SwiftDataError(.storeFailure, reason: "A save of a new \(pending.entity.name) was not sent to \(location.displayName). Nothing was saved; save again.")
            }
            model._osdState.primaryKey = key
            var result = StoreSaveResult(inserted: [key], upserted: isNew ? [] : [0], batchDeleted: [])
            result.historyTransaction = transaction
            return result
        }
    }

    /// Sends every waiting save in one trip, each with a key drawn for it, and gives each its
    /// outcome. Called with the store's lock held.
    private func sendWaitingSaves(on session: PostgresSession) {
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
            for (pending, outcome) in zip(waiting, try session.runSeparately(statements)) { pending.outcome = outcome }
        } catch {
            // Nothing was sent: every one fails with the reason.
            for pending in waiting { pending.outcome = .failure(error) }
        }
    }
}
