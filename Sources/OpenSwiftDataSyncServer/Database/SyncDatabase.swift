import Foundation
import Logging
import OpenSwiftDataSync
import PostgresNIO

/// The server's state in PostgreSQL: every user's synchronized rows with their per-property
/// clocks, and each client's last applied batch.
///
/// Tables live in a PostgreSQL schema of their own, `<name>_sync`:
/// - `rows (id, entity, owner, deleted, values, clocks, version, last_client, changed_at)`: each row's latest
///   state, its values and clocks as JSON text (exact: numbers are never reparsed), `version` from
///   the sequence `versions`: the change number pulls page by; `last_client` made that change, and
///   has the row as it is (a push's answer carries what the server changed of it), so its pulls
///   skip it.
/// - `clients (id, owner, sequence)`: the last batch applied for each client.
/// - `unique_keys (owner, entity, key, id)`: the values of each live row's uniqueness constraints.
/// - `change_log (seq, client, id, entity, property, clock, value, logged_at)`: every pushed value, winning or
///   not, with its clock, when the server records them (``SyncServer/recordsChangeLog``).
/// - `aliases (id, target)`: models created on two devices with the same unique values, which
///   became one: the identifier that lost, and the one it became.
/// - `past_values (id, property, clock, value, logged_at)`: values a change replaced, by the clock
///   they were written with, when the server has a resolver: the bases its conflicts show.
/// - `trims (owner, trimmed_through)`: for each user whose deletions were trimmed (``SyncServer/trimHistory(olderThan:)``), the last change number trimmed: a
///   client whose cursor is before it, or before that of a user who shares models with its user,
///   downloads its user's rows again.
/// - `shares`, `share_members`, `share_removals`: models shared with other users
///   (``SyncDatabase/share(_:with:permission:by:)``).
///
/// Writes take a transaction-scoped advisory lock of the namespace, so change numbers become
/// visible in the order they were given, and a pull that has read up to one number never misses a
/// smaller one committed later.
package struct SyncDatabase: Sendable {
    let client: PostgresClient
    let namespace: String
    let schema: SyncSchema
    /// Whether each push's values are kept in `change_log`, with their clocks (for audits and the
    /// convergence checker).
    let recordsChangeLog: Bool
    /// Decides properties two devices changed, instead of the later clock.
    let resolver: (any SyncConflictResolver)?
    /// Decides which changes a user may write, beyond ownership.
    var rules: (any SyncRules)?
    let logger: Logger
    /// When to bring PostgreSQL's statistics of the rows table up to date.
    let statistics: RowStatistics
    /// Which models a share of a model carries.
    let shareShape: ShareTreeShape
    /// About the most bytes of values one page of a pull carries: a page ends at the first row
    /// that reaches it (a row larger than it comes alone), so that a download of large values (a
    /// few hundred photos) is many answers of a few megabytes rather than one of gigabytes.
    var pageBytes = SyncDatabase.defaultPageBytes

    /// ``pageBytes`` unless a server says otherwise: 8 MiB.
    package static let defaultPageBytes = 8 << 20

    var quoted: String { "\"" + namespace.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
    /// The advisory lock of the namespace's writes.
    var lockKey: Int64 { Self.lockKey(of: namespace) }

    /// The advisory lock a namespace's pushes and trims hold until they commit: a reader that takes
    /// it sees every write begun before it.
    package static func lockKey(of namespace: String) -> Int64 {
        Int64(bitPattern: stableHash(namespace))
    }

    /// FNV-1a of a text: the same in every process, unlike `hashValue`.
    static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    /// Creates the tables when they are missing.
    func prepare() async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query(sql("SELECT pg_advisory_xact_lock(\(lockKey))"), logger: logger)
            for statement in [
                "CREATE SCHEMA IF NOT EXISTS \(quoted)",
                "CREATE SEQUENCE IF NOT EXISTS \(quoted).versions",
                """
                CREATE TABLE IF NOT EXISTS \(quoted).rows (id text PRIMARY KEY, entity text NOT NULL, owner text NOT NULL, \
                deleted boolean NOT NULL, "values" text NOT NULL, clocks text NOT NULL, version bigint NOT NULL)
                """,
                "CREATE INDEX IF NOT EXISTS rows_owner_version ON \(quoted).rows (owner, version)",
                "ALTER TABLE \(quoted).rows ADD COLUMN IF NOT EXISTS last_client text NOT NULL DEFAULT ''",
                "CREATE TABLE IF NOT EXISTS \(quoted).clients (id text PRIMARY KEY, owner text NOT NULL, sequence bigint NOT NULL)",
                "CREATE TABLE IF NOT EXISTS \(quoted).unique_keys (owner text NOT NULL, entity text NOT NULL, key text NOT NULL, id text NOT NULL, PRIMARY KEY (owner, entity, key))",
                "CREATE INDEX IF NOT EXISTS unique_keys_id ON \(quoted).unique_keys (id)",
                "CREATE TABLE IF NOT EXISTS \(quoted).aliases (id text PRIMARY KEY, target text NOT NULL)",
                """
                CREATE TABLE IF NOT EXISTS \(quoted).change_log (seq bigserial PRIMARY KEY, client text NOT NULL, id text NOT NULL, \
                entity text NOT NULL, property text NOT NULL, clock text NOT NULL, value text NOT NULL)
                """,
                // When each row and value was last written (under the namespace's lock, not when its
                // transaction began), for trimming; rows already there count from now.
                "ALTER TABLE \(quoted).rows ADD COLUMN IF NOT EXISTS changed_at timestamptz NOT NULL DEFAULT now()",
                "ALTER TABLE \(quoted).change_log ADD COLUMN IF NOT EXISTS logged_at timestamptz NOT NULL DEFAULT now()",
                "CREATE TABLE IF NOT EXISTS \(quoted).trims (owner text PRIMARY KEY, trimmed_through bigint NOT NULL)",
                """
                CREATE TABLE IF NOT EXISTS \(quoted).past_values (id text NOT NULL, property text NOT NULL, clock text NOT NULL, \
                value text NOT NULL, logged_at timestamptz NOT NULL, PRIMARY KEY (id, property, clock))
                """,
                Self.partsTable(quoted),
            ] + sharingTables + [scanFunction] {
                try await connection.query(sql(statement), logger: logger)
            }
        }
    }

    /// Registers a client for a user; a client of another user is refused.
    func register(client id: String, user: String) async throws {
        var binds = PostgresBindings()
        binds.append(id)
        binds.append(user)
        try await client.withTransaction(logger: logger) { connection in
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: "INSERT INTO \(quoted).clients (id, owner, sequence) VALUES ($1, $2, 0) ON CONFLICT (id) DO NOTHING RETURNING id", binds: binds),
                logger: logger)
            var inserted = false
            for try await _ in rows { inserted = true }
            if !inserted { try await checkOwner(of: id, user: user, on: connection) }
        }
    }

    // MARK: Rows

    /// The stored rows of the given identifiers, by identifier, locked for the transaction.
    func rows(_ ids: [String], on connection: PostgresConnection) async throws -> [String: StoredSyncRow] {
        guard !ids.isEmpty else { return [:] }
        var binds = PostgresBindings()
        binds.append(ids)
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: """
                SELECT id, entity, owner, deleted, "values", clocks, version FROM \(quoted).rows WHERE id = ANY($1) FOR UPDATE
                """, binds: binds),
            logger: logger)
        var result: [String: StoredSyncRow] = [:]
        for try await columns in rows.decode((String, String, String, Bool, String, String, Int64).self) {
            result[columns.0] = StoredSyncRow(row: try Self.row(columns), owner: columns.2)
        }
        return result
    }

    /// Writes rows in one statement, each with a new change number, in the order given.
    func write(_ rows: [(row: StoredSyncRow, lastClient: String)], on connection: PostgresConnection) async throws {
        guard !rows.isEmpty else { return }
        var binds = PostgresBindings()
        binds.append(rows.map(\.row.row.id))
        binds.append(rows.map(\.row.row.entity))
        binds.append(rows.map(\.row.owner))
        binds.append(rows.map(\.row.row.deleted))
        binds.append(try rows.map { row in try Self.json { writer throws(SyncJSONError) in try writer.values(row.row.row.values) } })
        binds.append(rows.map { row in Self.json { writer in writer.clocks(row.row.row.clocks) } })
        binds.append(rows.map(\.lastClient))
        try await connection.query(
            PostgresQuery(unsafeSQL: """
                INSERT INTO \(quoted).rows (id, entity, owner, deleted, "values", clocks, version, last_client, changed_at) \
                SELECT u.id, u.entity, u.owner, u.deleted, u.vals, u.clocks, nextval('\(quoted).versions'), u.last_client, clock_timestamp() \
                FROM unnest($1::text[], $2::text[], $3::text[], $4::bool[], $5::text[], $6::text[], $7::text[]) \
                WITH ORDINALITY AS u(id, entity, owner, deleted, vals, clocks, last_client, position) ORDER BY u.position \
                ON CONFLICT (id) DO UPDATE SET owner = EXCLUDED.owner, deleted = EXCLUDED.deleted, "values" = EXCLUDED."values", \
                clocks = EXCLUDED.clocks, version = EXCLUDED.version, last_client = EXCLUDED.last_client, changed_at = EXCLUDED.changed_at
                """, binds: binds),
            logger: logger)
    }

    /// Refuses a batch that relates a model to one the user cannot reach: neither in the batch nor
    /// one of the user's rows nor shared with the user. Returns the related models that are
    /// deleted, or that a share no longer carries to the user; adds what the user may do with the
    /// others' related models to `access`.
    func checkReferences(
        of changes: [SyncChange], user: String, stored: [String: StoredSyncRow], access: inout [String: SharedAccess], on connection: PostgresConnection
    ) async throws -> Set<String> {
        // Models the batch makes are reachable; those it changes are checked as any other (a change
        // the shares refuse does not make its model reachable).
        let inBatch = Set(changes.filter { stored[$0.id] == nil }.map(\.id))
        var wanted: [String: String] = [:]
        for change in changes {
            for (name, value) in change.values {
                for target in value.referencedIDs where !inBatch.contains(target) { wanted[target] = "\(change.entity).\(name)" }
            }
        }
        guard !wanted.isEmpty else { return [] }
        var found = stored.filter { wanted[$0.key] != nil }
        let unread = wanted.keys.filter { found[$0] == nil }
        if !unread.isEmpty { found.merge(try await rows(unread, on: connection)) { held, _ in held } }
        var deleted: Set<String> = []
        // A model the server does not hold may be one of the user's deleted so long ago that its
        // record was trimmed: once the user's deletions were trimmed, such a relationship holds
        // nothing, as one to any deleted model.
        let trimmed = found.count < wanted.count ? try await trimmedThrough(of: user, on: connection) > 0 : false
        let foreign = found.values.filter { $0.owner != user }.map(\.row.id)
        if !foreign.isEmpty { access.merge(try await sharedAccess(to: foreign, for: user, on: connection)) { old, _ in old } }
        for (target, place) in wanted.sorted(by: { $0.key < $1.key }) {
            guard let row = found[target] else {
                if trimmed {
                    deleted.insert(target)
                    continue
                }
                throw SyncProblem(code: "badRequest", message: "\(place) relates to the model \(target), which the server does not hold")
            }
            if row.owner != user {
                switch access[target] {
                case .readOnly, .readWrite: break
                case .removed:
                    // A model a share no longer carries to the user: the relationship holds nothing.
                    deleted.insert(target)
                    continue
                case nil:
                    throw SyncProblem(code: "badRequest", message: "\(place) relates to the model \(target), which belongs to another user")
                }
            }
            if row.row.deleted { deleted.insert(target) }
        }
        return deleted
    }

    /// The last batch applied for a client; refuses a client registered by another user.
    @discardableResult
    func checkOwner(of client: String, user: String, on connection: PostgresConnection) async throws -> Int64 {
        var binds = PostgresBindings()
        binds.append(client)
        let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT owner, sequence FROM \(quoted).clients WHERE id = $1", binds: binds), logger: logger)
        // The rows are read to their end: a row stream left midway upsets the connection.
        var found: (owner: String, sequence: Int64)?
        for try await (owner, sequence) in rows.decode((String, Int64).self) { found = (owner, sequence) }
        if let found {
            guard found.owner == user else {
                throw SyncProblem(code: "badRequest", message: "The client \(client) belongs to another user")
            }
            return found.sequence
        }
        throw SyncProblem(code: "badRequest", message: "The client \(client) has not said hello (POST \(SyncPath.hello)) before pushing")
    }

    private static func row(_ columns: (String, String, String, Bool, String, String, Int64)) throws -> SyncRow {
        var values = SyncJSONReader(columns.4.utf8)
        var clocks = SyncJSONReader(columns.5.utf8)
        return SyncRow(entity: columns.1, id: columns.0, deleted: columns.3, values: try values.readValues(), clocks: try clocks.readClocks(), version: columns.6)
    }

    /// The JSON text `body` writes.
    private static func json<Failure: Error>(_ body: (inout SyncJSONWriter) throws(Failure) -> Void) throws(Failure) -> String {
        var writer = SyncJSONWriter()
        try body(&writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    func sql(_ text: String) -> PostgresQuery { PostgresQuery(unsafeSQL: text) }
}

/// A row as the server holds it, with its owner.
struct StoredSyncRow: Sendable {
    var row: SyncRow
    var owner: String
}
