import Foundation
import OpenSwiftDataSync
import PostgresNIO

extension SyncDatabase {
    /// The user's rows changed after `cursor`, in change order, less those whose last change came
    /// from `client` itself.
    func changes(of user: String, client: String, after cursor: Int64, limit: Int) async throws -> PullPage {
        try await page(of: scan(of: user, after: cursor, limit: limit), for: client)
    }

    /// The user's rows changed after `cursor`, in change order, every client's, with the user's
    /// trim point: what the pulls of every device of the user after that cursor are made of. The
    /// user's rows are their own and those shares carry to them; a row a share carries no more
    /// comes as a deletion.
    ///
    /// The query is sent itself, planned for its cursor and page size (a download's pages of
    /// thousands of rows, which ``scanFunction`` would gather before returning); waiting pulls read
    /// through that function, in batches (``scan(_:)``).
    func scan(of user: String, after cursor: Int64, limit: Int) async throws -> ScannedRows {
        var binds = PostgresBindings()
        binds.append(user)
        binds.append(cursor)
        binds.append(Int64(limit))
        // The user's trim comes with each row, read in the statement's snapshot: a trim of
        // deletions after `cursor` committed before it shows here, one committed after left every
        // row it would remove in the page.
        let rows = try await self.client.query(
            PostgresQuery(unsafeSQL: "SELECT * FROM (\(scanQuery(user: "$1", after: "$2", limit: "$3"))) AS page", binds: binds),
            logger: logger)
        var scanned = ScannedRows(user: user, cursor: cursor, limit: limit)
        for try await columns in rows.decode((String, String, Bool, String, String, Int64, String, Int64?).self) {
            scanned.rows.append(ScannedRows.Row(
                row: PullPage.Row(id: columns.0, entity: columns.1, deleted: columns.2, values: columns.3, clocks: columns.4, version: columns.5),
                lastClient: columns.6))
            scanned.trimmedThrough = columns.7
        }
        return scanned
    }

    /// The scans of waiting pulls (``BatchedScans``), in one statement, each through
    /// ``scanFunction``: what ``scan(of:after:limit:)`` reads for each.
    func scan(_ scans: [BatchedScans.Scan]) async throws -> [BatchedScans.Scan: ScannedRows] {
        guard !scans.isEmpty else { return [:] }
        var binds = PostgresBindings()
        binds.append(scans.map(\.user))
        binds.append(scans.map(\.cursor))
        binds.append(scans.map { Int64($0.limit) })
        let rows = try await self.client.query(
            PostgresQuery(unsafeSQL: """
                SELECT u.n, s.* FROM unnest($1::text[], $2::bigint[], $3::bigint[]) WITH ORDINALITY AS u(usr, after, lim, n) \
                CROSS JOIN LATERAL \(quoted).scan_rows(u.usr, u.after, u.lim) AS s ORDER BY u.n, s.o_version
                """, binds: binds),
            logger: logger)
        var scanned = scans.map { ScannedRows(user: $0.user, cursor: $0.cursor, limit: $0.limit) }
        for try await columns in rows.decode((Int64, String, String, Bool, String, String, Int64, String, Int64?).self) {
            let index = Int(columns.0) - 1
            guard scanned.indices.contains(index) else { continue }
            scanned[index].rows.append(ScannedRows.Row(
                row: PullPage.Row(id: columns.1, entity: columns.2, deleted: columns.3, values: columns.4, clocks: columns.5, version: columns.6),
                lastClient: columns.7))
            scanned[index].trimmedThrough = columns.8
        }
        return Dictionary(zip(scans, scanned), uniquingKeysWith: { first, _ in first })
    }

    /// The query of a scan, with the user, the cursor and the page size as the given expressions:
    /// the user's own rows, the rows shares carry to them, and the removals of ended shares, each
    /// read by its index up to a page, then merged; the page ends at the first row whose values
    /// reach ``pageBytes`` with those before it (`octet_length` reads a stored value's size, not
    /// the value).
    private func scanQuery(user: String, after: String, limit: String) -> String {
        """
        SELECT sized.id, sized.entity, sized.deleted, sized.vals, sized.clocks, sized.version, sized.last_client, sized.trimmed FROM (\
        SELECT page.*, sum(octet_length(page.vals)) OVER (ORDER BY page.version ROWS UNBOUNDED PRECEDING) - octet_length(page.vals) AS before \
        FROM (\
        SELECT scope.id, scope.entity, scope.deleted, scope.vals, scope.clocks, scope.version, scope.last_client, \
        (SELECT coalesce(max(t.trimmed_through), 0) FROM \(quoted).trims t \
        WHERE t.owner = \(user) OR t.owner IN (SELECT s.owner FROM \(quoted).shares s WHERE s.participant = \(user)))::bigint AS trimmed FROM (\
        (SELECT r.id, r.entity, r.deleted, r."values" AS vals, r.clocks, r.version, r.last_client FROM \(quoted).rows r \
        WHERE r.owner = \(user) AND r.version > \(after) ORDER BY r.version LIMIT \(limit)) \
        UNION ALL (SELECT DISTINCT ON (r.version) r.id, r.entity, r.deleted, r."values", r.clocks, r.version, r.last_client \
        FROM \(quoted).shares s JOIN \(quoted).share_members m ON m.root = s.root JOIN \(quoted).rows r ON r.id = m.id \
        WHERE s.participant = \(user) AND r.version > \(after) AND r.owner <> \(user) ORDER BY r.version LIMIT \(limit)) \
        UNION ALL (SELECT x.id, x.entity, true, '{}', '{}', x.version, ''::text FROM \(quoted).share_removals x \
        WHERE x.participant = \(user) AND x.version > \(after) ORDER BY x.version LIMIT \(limit))\
        ) AS scope ORDER BY scope.version LIMIT \(limit)\
        ) AS page) AS sized WHERE sized.before < \(pageBytes) ORDER BY sized.version
        """
    }

    /// The function waiting pulls read through (``scan(_:)``): PL/pgSQL keeps
    /// the plan of its query on each connection, where a query sent as text is planned on every
    /// pull, and a change wakes a pull of every device of every user who reads it.
    var scanFunction: String {
        """
        CREATE OR REPLACE FUNCTION \(quoted).scan_rows(p_user text, p_after bigint, p_limit bigint) \
        RETURNS TABLE (o_id text, o_entity text, o_deleted boolean, o_values text, o_clocks text, o_version bigint, o_last_client text, o_trimmed bigint) \
        LANGUAGE plpgsql STABLE AS $scan$ BEGIN RETURN QUERY \(scanQuery(user: "p_user", after: "p_after", limit: "p_limit")); END $scan$
        """
    }

    /// A client's page of scanned rows: without the rows it changed last, or a reset when the
    /// user's deletions after the cursor were trimmed.
    ///
    /// A download from the start (`client` empty) pages through every live row, and what it does
    /// not hold its device deletes: the trimmed deletions after its cursor are none of its
    /// business, and it is never answered with a reset (which would start it over, page after page).
    ///
    /// A download's page says the user's trim point instead: a download during which it grows
    /// starts over (a deletion it trimmed may be of a model an earlier page brought).
    func page(of scanned: ScannedRows, for client: String) async throws -> PullPage {
        var trimmed = scanned.trimmedThrough
        // No row after the cursor: perhaps because a trim removed them. Read after the rows, a
        // trim that removed deletions after the cursor before they were read has committed, and is seen.
        if scanned.rows.isEmpty, scanned.cursor > 0 || client.isEmpty { trimmed = try await trimmedThrough(of: scanned.user) }
        if !client.isEmpty, scanned.cursor > 0, let trimmed, trimmed > scanned.cursor {
            return PullPage(rows: [], cursor: 0, upToDate: false, reset: true)
        }
        // Rows the rules hide from the user reach the devices as deletions.
        let rows = try scanned.rows.compactMap { client.isEmpty || $0.lastClient != client ? try visible($0.row, to: scanned.user) : nil }
        // A page that ended at its size may have more rows after it.
        let bytes = scanned.rows.reduce(0) { $0 + $1.row.values.utf8.count }
        return PullPage(
            rows: rows, cursor: scanned.rows.last?.row.version ?? scanned.cursor, upToDate: scanned.rows.count < scanned.limit && bytes < pageBytes,
            trimmedThrough: client.isEmpty ? trimmed ?? 0 : nil)
    }
}

/// The rows of a user changed after a cursor, as read for every device of the user.
struct ScannedRows: Sendable {
    /// A row, and the client whose change it holds last (`""` when no client has it as it is).
    struct Row: Sendable {
        let row: PullPage.Row
        let lastClient: String
    }

    let user: String
    /// The cursor the rows follow.
    let cursor: Int64
    /// The most rows read.
    let limit: Int
    var rows: [Row] = []
    /// The last change number of the user's trimmed deletions, read with the rows (`nil`: none, or
    /// no row read).
    var trimmedThrough: Int64?
}

/// A page of the rows that changed after a cursor, as a pull answers it: each row's values and
/// clocks as the JSON they are stored as, passed through unread.
struct PullPage: SyncJSONWritable {
    /// A row of the page.
    struct Row: Sendable {
        let id: String
        let entity: String
        let deleted: Bool
        /// The values' JSON text, as stored.
        let values: String
        /// The clocks' JSON text, as stored.
        let clocks: String
        let version: Int64
    }

    var rows: [Row]
    /// The cursor after these rows.
    var cursor: Int64
    /// Whether no row changed after `cursor` when the page was read.
    var upToDate: Bool
    /// Whether the client downloads everything again (see ``PullResponse/reset``).
    var reset: Bool?
    /// A download's page: the user's trim point (see ``PullResponse/trimmedThrough``).
    var trimmedThrough: Int64?

    func write(json writer: inout SyncJSONWriter) throws(SyncJSONError) {
        try PullResponse.write(cursor: cursor, upToDate: upToDate, reset: reset, trimmedThrough: trimmedThrough, json: &writer) { writer throws(SyncJSONError) in
            try writer.array { writer throws(SyncJSONError) in
                for row in rows {
                    writer.element()
                    try SyncRow.write(entity: row.entity, id: row.id, deleted: row.deleted, version: row.version, json: &writer) { writer in
                        writer.fragment(row.values)
                    } clocks: { writer in
                        writer.fragment(row.clocks)
                    }
                }
            }
        }
    }
}
