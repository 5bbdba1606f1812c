import Foundation
import OpenSwiftDataSync
import PostgresNIO

/// A batch too large for one request comes in parts (``PushRequest/part``): the parts before the
/// last are kept in `push_parts`, and the last part's push applies the whole batch, in one
/// transaction, as if it had come in one request. Only the last batch a client sent in parts is
/// kept (each newer one replaces it), so that the last part sent again after its answer was lost
/// is answered for the whole batch; a trim removes parts older than its age, and a day at least.
extension SyncDatabase {
    /// The statement that makes the table of kept parts.
    static func partsTable(_ quoted: String) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(quoted).push_parts (client text NOT NULL, sequence bigint NOT NULL, part integer NOT NULL, \
        changes text NOT NULL, logged_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (client, sequence, part))
        """
    }

    /// Keeps a part before a batch's last. A batch the server already applied keeps nothing.
    func keep(part push: PushRequest, user: String) async throws {
        guard let part = push.part else { return }
        var writer = SyncJSONWriter()
        try writer.list(push.changes)
        var binds = PostgresBindings()
        binds.append(push.client)
        binds.append(push.sequence)
        binds.append(part)
        binds.append(String(decoding: writer.data, as: UTF8.self))
        var batch = PostgresBindings()
        batch.append(push.client)
        batch.append(push.sequence)
        try await client.withTransaction(logger: logger) { connection in
            let applied = try await checkOwner(of: push.client, user: user, on: connection)
            guard applied < push.sequence else { return }
            try await connection.query(
                PostgresQuery(unsafeSQL: "DELETE FROM \(quoted).push_parts WHERE client = $1 AND sequence <> $2", binds: batch), logger: logger)
            try await connection.query(
                PostgresQuery(unsafeSQL: """
                    INSERT INTO \(quoted).push_parts (client, sequence, part, changes) VALUES ($1, $2, $3, $4) \
                    ON CONFLICT (client, sequence, part) DO UPDATE SET changes = EXCLUDED.changes, logged_at = now()
                    """, binds: binds),
                logger: logger)
        }
    }

    /// The whole batch the last part `push` ends: the kept parts' changes, then its own. A batch
    /// the server applied whose parts a trim removed since (its answer lost, and the client away
    /// for longer than the parts are kept) is its last part alone: it is answered as a batch sent
    /// again, for the models of that part.
    ///
    /// - Throws: ``SyncProblem`` naming the first part the server does not keep (the client sends
    ///   the batch again from its first part).
    func wholeBatch(endedBy push: PushRequest, user: String, maximumBytes: Int) async throws -> PushRequest {
        guard let parts = push.parts, parts > 1 else { return push }
        var binds = PostgresBindings()
        binds.append(push.client)
        binds.append(push.sequence)
        binds.append(parts - 1)
        // The parts are read into memory to be applied: a batch larger than the server takes is
        // refused before.
        let sizes = try await client.query(
            PostgresQuery(unsafeSQL: """
                SELECT coalesce(sum(octet_length(changes)), 0)::int8 FROM \(quoted).push_parts WHERE client = $1 AND sequence = $2 AND part < $3
                """, binds: binds),
            logger: logger)
        var kept: Int64 = 0
        for try await size in sizes.decode(Int64.self) { kept = size }
        guard kept <= maximumBytes else {
            throw SyncProblem(
                code: "badRequest",
                message: "The batch \(push.sequence) holds more than \(maximumBytes) bytes in its parts, the most the server applies at once; save fewer or smaller models at a time, or let the server take larger requests (SyncServer.maximumRequestSize)")
        }
        let rows = try await client.query(
            PostgresQuery(unsafeSQL: """
                SELECT part, changes FROM \(quoted).push_parts WHERE client = $1 AND sequence = $2 AND part < $3 ORDER BY part
                """, binds: binds),
            logger: logger)
        var changes: [SyncChange] = []
        var expected = 0
        var missing: Int?
        // The rows are read to their end: a row stream left midway upsets the connection.
        for try await (part, text) in rows.decode((Int, String).self) {
            if part != expected, missing == nil { missing = expected }
            expected = part + 1
            var reader = SyncJSONReader(text.utf8)
            changes += try reader.readList(of: SyncChange.self)
        }
        if missing == nil, expected != parts - 1 { missing = expected }
        var whole = push
        whole.part = nil
        whole.parts = nil
        if let missing {
            let applied = try await client.withConnection { connection in try await checkOwner(of: push.client, user: user, on: connection) }
            if applied >= push.sequence { return whole }
            throw SyncProblem(
                code: "badRequest",
                message: "Part \(missing) of the batch \(push.sequence) of \(parts) parts was not received; send the batch again from its first part")
        }
        whole.changes = changes + push.changes
        return whole
    }
}
