import Foundation
import OpenSwiftDataSync
import PostgresNIO

extension SyncDatabase {
    /// Removes the deletions (tombstones), the change log entries and the past values (the bases
    /// a resolver sees) written more than `age` ago, in one transaction, and records for each user the last change number it removed: a
    /// client whose cursor is before that number may have missed a deletion, and downloads the
    /// user's rows again on its next pull. With `keepingChangeLog`, the change log stays whole.
    /// Returns what was removed.
    func trim(olderThan age: Duration, keepingChangeLog: Bool = false) async throws -> SyncTrimResult {
        let seconds = Double(age.components.seconds) + Double(age.components.attoseconds) / 1e18
        var binds = PostgresBindings()
        binds.append(seconds)
        return try await client.withTransaction(logger: logger) { connection in
            try await connection.query(sql("SELECT pg_advisory_xact_lock(\(lockKey))"), logger: logger)
            var result = SyncTrimResult(deletions: 0, changeLogEntries: 0, pastValues: 0)
            let trimmed = try await connection.query(
                PostgresQuery(unsafeSQL: """
                    WITH gone AS (DELETE FROM \(quoted).rows WHERE deleted AND changed_at < now() - make_interval(secs => $1) \
                    RETURNING owner, version), \
                    marks AS (INSERT INTO \(quoted).trims AS t (owner, trimmed_through) SELECT owner, max(version) FROM gone GROUP BY owner \
                    ON CONFLICT (owner) DO UPDATE SET trimmed_through = greatest(t.trimmed_through, EXCLUDED.trimmed_through)) \
                    SELECT count(*)::int8 FROM gone
                    """, binds: binds),
                logger: logger)
            for try await count in trimmed.decode(Int64.self) { result.deletions = Int(count) }
            if !keepingChangeLog { result.changeLogEntries = try await removeEntries(of: "change_log", olderThan: binds, on: connection) }
            result.pastValues = try await removeEntries(of: "past_values", olderThan: binds, on: connection)
            // Parts of a batch whose last part never came (a client gone for good), kept a day at
            // least: a client sending its parts now needs them.
            var partsAge = PostgresBindings()
            partsAge.append(max(seconds, 86_400))
            _ = try await removeEntries(of: "push_parts", olderThan: partsAge, on: connection)
            return result
        }
    }

    /// Removes the entries of a table of the namespace logged before the age `age` binds (in
    /// seconds); returns how many.
    private func removeEntries(of table: String, olderThan age: PostgresBindings, on connection: PostgresConnection) async throws -> Int {
        let removed = try await connection.query(
            PostgresQuery(unsafeSQL: """
                WITH gone AS (DELETE FROM \(quoted).\(table) WHERE logged_at < now() - make_interval(secs => $1) RETURNING 1) \
                SELECT count(*)::int8 FROM gone
                """, binds: age),
            logger: logger)
        var count = 0
        // The rows are read to their end: a row stream left midway upsets the connection.
        for try await number in removed.decode(Int64.self) { count = Int(number) }
        return count
    }

    /// The last change number of the user's trimmed deletions, or 0.
    func trimmedThrough(of user: String) async throws -> Int64 {
        try await client.withConnection { connection in try await trimmedThrough(of: user, on: connection) }
    }

    /// The last change number of the user's trimmed deletions, or 0, read on `connection`: of the
    /// user's own and of those of the users who share models with them. (The removals of ended
    /// shares are kept: a device that pushes a change to a model no longer shared with its user
    /// is answered with a refusal, however long it was away.)
    func trimmedThrough(of user: String, on connection: PostgresConnection) async throws -> Int64 {
        var binds = PostgresBindings()
        binds.append(user)
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: """
                SELECT coalesce(max(trimmed_through), 0) FROM \(quoted).trims \
                WHERE owner = $1 OR owner IN (SELECT owner FROM \(quoted).shares WHERE participant = $1)
                """, binds: binds), logger: logger)
        var through: Int64 = 0
        // The rows are read to their end: a row stream left midway upsets the connection.
        for try await value in rows.decode(Int64.self) { through = value }
        return through
    }
}

/// What ``SyncServer/trimHistory(olderThan:)`` removed.
public struct SyncTrimResult: Sendable, Equatable {
    /// The deleted models' records (tombstones) removed.
    public var deletions: Int
    /// The change log entries removed (``SyncServer/init(postgresURL:name:schema:authenticator:resolver:recordsChangeLog:logger:)``'s `recordsChangeLog`).
    public var changeLogEntries: Int
    /// The replaced values removed, which conflicts show resolvers as their bases
    /// (``SyncPropertyConflict/base``): a conflict over one of them shows none.
    public var pastValues: Int
}
