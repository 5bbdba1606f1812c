import OpenSwiftDataSync
import PostgresNIO

/// Shares: a model and what cascades from it, read (and, read-write, changed) by another user.
///
/// Tables, beside the rows (``SyncDatabase``):
/// - `shares (root, owner, participant, permission, entity)`: who shares which model with whom.
/// - `share_members (root, id)`: the rows each shared model carries: itself and what cascades
///   from it, recorded when it is shared and as pushes add children.
/// - `share_removals (participant, id, entity, version, changed_at)`: rows a participant no longer
///   reads (the share ended), each with a change number: the participant's devices pull it as a
///   deletion.
extension SyncDatabase {
    /// The statements that make the sharing tables.
    var sharingTables: [String] {
        [
            """
            CREATE TABLE IF NOT EXISTS \(quoted).shares (root text NOT NULL, owner text NOT NULL, participant text NOT NULL, \
            permission text NOT NULL, entity text NOT NULL, PRIMARY KEY (root, participant))
            """,
            "CREATE INDEX IF NOT EXISTS shares_participant ON \(quoted).shares (participant)",
            "CREATE INDEX IF NOT EXISTS shares_owner ON \(quoted).shares (owner)",
            "CREATE TABLE IF NOT EXISTS \(quoted).share_members (root text NOT NULL, id text NOT NULL, PRIMARY KEY (root, id))",
            "CREATE INDEX IF NOT EXISTS share_members_id ON \(quoted).share_members (id)",
            """
            CREATE TABLE IF NOT EXISTS \(quoted).share_removals (participant text NOT NULL, id text NOT NULL, entity text NOT NULL, \
            version bigint NOT NULL, changed_at timestamptz NOT NULL)
            """,
            "CREATE INDEX IF NOT EXISTS share_removals_participant ON \(quoted).share_removals (participant, version)",
        ]
    }

    // MARK: Sharing and ending shares

    /// Shares a model the user owns, and what cascades from it, with `participant`; a model
    /// already shared with them takes the new permission. Returns the users to announce it to.
    func share(_ id: String, with participant: String, permission: SyncSharePermission, by user: String) async throws -> [String] {
        guard !participant.isEmpty, participant != user else {
            throw SyncProblem(code: "badRequest", message: "A model is shared with another user, not with \(participant.isEmpty ? "no one" : "its owner")")
        }
        return try await client.withTransaction(logger: logger) { connection in
            try await connection.query(sql("SELECT pg_advisory_xact_lock(\(lockKey))"), logger: logger)
            let root = try await ownedRoot(id, by: user, on: connection)
            var binds = PostgresBindings()
            binds.append(id)
            binds.append(user)
            binds.append(participant)
            binds.append(permission.rawValue)
            binds.append(root.entity)
            let inserted = try await connection.query(
                PostgresQuery(unsafeSQL: """
                    INSERT INTO \(quoted).shares AS s (root, owner, participant, permission, entity) VALUES ($1, $2, $3, $4, $5) \
                    ON CONFLICT (root, participant) DO UPDATE SET permission = EXCLUDED.permission RETURNING (xmax = 0)
                    """, binds: binds),
                logger: logger)
            var isNew = false
            for try await created in inserted.decode(Bool.self) { isNew = created }
            var members = try await tree(of: root, owner: user, on: connection)
            try await addMembers(members.map { (root: id, id: $0) }, on: connection)
            if isNew {
                // The share carries what other participants' shares of the model gathered too
                // (children moved away from it since stay shared).
                let found = Set(members)
                members += try await recordedMembers(of: id, on: connection).filter { !found.contains($0) }
                // The participant's devices pulled past these rows' change numbers long ago: the
                // rows take new ones, parents before what hangs off them, and reach them with their
                // next pull.
                try await renumber(members, on: connection)
            }
            try await notify([participant], on: connection)
            return [participant]
        }
    }

    /// Ends a share: its owner stops sharing the model with `participant`, or the participant
    /// leaves it. The rows it carried leave the participant's devices (those another share still
    /// carries stay). Returns the users to announce it to.
    func stopSharing(_ id: String, with participant: String, by user: String) async throws -> [String] {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query(sql("SELECT pg_advisory_xact_lock(\(lockKey))"), logger: logger)
            var binds = PostgresBindings()
            binds.append(id)
            binds.append(participant)
            binds.append(user)
            let ended = try await connection.query(
                PostgresQuery(unsafeSQL: """
                    DELETE FROM \(quoted).shares WHERE root = $1 AND participant = $2 AND (owner = $3 OR participant = $3) RETURNING owner
                    """, binds: binds),
                logger: logger)
            var owner: String?
            for try await name in ended.decode(String.self) { owner = name }
            guard let owner else {
                throw SyncProblem(code: "badRequest", message: "The model \(id) is not shared with \(participant) by or with \(user)")
            }
            // The rows leave the participant's devices; deleted ones too (the participant may not
            // have pulled the deletion yet, and would not now).
            try await remove(try await recordedMembers(of: id, on: connection), from: [participant], on: connection)
            // A model shared with no one carries nothing: sharing it again finds its rows anew.
            var forget = PostgresBindings()
            forget.append(id)
            try await connection.query(
                PostgresQuery(unsafeSQL: """
                    DELETE FROM \(quoted).share_members WHERE root = $1 AND NOT EXISTS (SELECT 1 FROM \(quoted).shares WHERE root = $1)
                    """, binds: forget),
                logger: logger)
            try await notify([participant, owner], on: connection)
            return [participant, owner]
        }
    }

    /// The shares the user takes part in, as owner or participant; with `id`, those of that model.
    func shares(of user: String, id: String?) async throws -> [SyncShare] {
        var binds = PostgresBindings()
        binds.append(user)
        binds.append(id)
        // A participant sees the model's other participants too, as CloudKit's share does.
        let rows = try await client.query(
            PostgresQuery(unsafeSQL: """
                SELECT s.entity, s.root, s.owner, s.participant, s.permission FROM \(quoted).shares s \
                WHERE ($2::text IS NULL OR s.root = $2) AND (s.owner = $1 OR s.root IN (SELECT root FROM \(quoted).shares WHERE participant = $1)) \
                ORDER BY s.root, s.participant
                """, binds: binds),
            logger: logger)
        var shares: [SyncShare] = []
        for try await (entity, root, owner, participant, permission) in rows.decode((String, String, String, String, String).self) {
            shares.append(SyncShare(
                entity: entity, id: root, owner: owner, participant: participant, permission: SyncSharePermission(rawValue: permission) ?? .readOnly))
        }
        return shares
    }

    // MARK: Pushes

    /// What the user may do with rows of others among `ids`, through the shares they take part in:
    /// read-write wins over read-only.
    func sharedAccess(to ids: [String], for user: String, on connection: PostgresConnection) async throws -> [String: SharedAccess] {
        guard !ids.isEmpty else { return [:] }
        var binds = PostgresBindings()
        binds.append(user)
        binds.append(ids)
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: """
                SELECT m.id, s.permission, s.owner FROM \(quoted).share_members m JOIN \(quoted).shares s ON s.root = m.root \
                WHERE s.participant = $1 AND m.id = ANY($2)
                UNION ALL SELECT id, 'removed', '' FROM \(quoted).share_removals WHERE participant = $1 AND id = ANY($2)
                """, binds: binds),
            logger: logger)
        var access: [String: SharedAccess] = [:]
        for try await (id, permission, owner) in rows.decode((String, String, String).self) {
            let found: SharedAccess = switch permission {
            case SyncSharePermission.readWrite.rawValue: .readWrite(owner: owner)
            case SyncSharePermission.readOnly.rawValue: .readOnly(owner: owner)
            default: .removed
            }
            if found.rank > access[id]?.rank ?? -1 { access[id] = found }
        }
        return access
    }

    /// Records the shares the batch's rows join: a row whose cascading parent a share carries is
    /// carried too, and a row of the user's that joins a share of another user's becomes that
    /// user's (a participant's new stop of a shared trip is the owner's, as the trip is: the owner's
    /// devices hold it, and it leaves the participant's when the share ends). Returns the users
    /// who read the written rows besides `user`.
    func joinShares(_ written: [String], stored: inout [String: StoredSyncRow], user: String, on connection: PostgresConnection) async throws -> Set<String> {
        guard !written.isEmpty else { return [] }
        var edges: [(child: String, parent: String)] = []
        if !shareShape.isEmpty {
            for id in written {
                guard let row = stored[id]?.row else { continue }
                edges += shareShape.parents(of: row).map { (id, $0) }
                edges += shareShape.listedChildren(of: row).map { ($0, id) }
            }
        }
        // One read of the shares that carry the written rows (their readers) and the rows they
        // hang off (which shares they join).
        let existing = written.filter { stored[$0].map { $0.row.version != 0 } == true }
        let lookup = Set(edges.map(\.parent)).union(existing)
        var roots: [String: Set<String>] = [:]
        var owners: [String: String] = [:]
        /// The owner and participants of each share.
        var users: [String: Set<String>] = [:]
        if !lookup.isEmpty {
            var binds = PostgresBindings()
            binds.append(Array(lookup))
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: """
                    SELECT m.id, m.root, s.owner, s.participant FROM \(quoted).share_members m JOIN \(quoted).shares s ON s.root = m.root \
                    WHERE m.id = ANY($1)
                    """, binds: binds),
                logger: logger)
            for try await (id, root, owner, participant) in rows.decode((String, String, String, String).self) {
                roots[id, default: []].insert(root)
                owners[root] = owner
                users[root, default: []].formUnion([owner, participant])
            }
        }
        var readers = Set(existing.flatMap { roots[$0] ?? [] }.flatMap { users[$0] ?? [] })
        var joined: [(root: String, id: String)] = []
        var changed = !roots.isEmpty && !edges.isEmpty
        while changed {
            changed = false
            for edge in edges {
                for root in roots[edge.parent] ?? [] where roots[edge.child, default: []].insert(root).inserted {
                    joined.append((root, edge.child))
                    changed = true
                }
            }
        }
        // A model the batch moved under a shared model brings what cascades from it: rows the
        // participants pulled past long ago, which take new change numbers to reach them.
        var subtrees: [String: [String]] = [:]
        for (root, id) in joined {
            guard let row = stored[id], row.row.version != 0 else { continue }
            if subtrees[id] == nil { subtrees[id] = try await tree(of: row.row, owner: row.owner, on: connection).filter { stored[$0] == nil } }
            joined += (subtrees[id] ?? []).map { (root, $0) }
        }
        try await addMembers(joined, on: connection)
        try await renumber(Array(Set(subtrees.values.joined())), on: connection)
        for (root, id) in joined {
            readers.formUnion(users[root] ?? [])
            guard var row = stored[id], row.owner == user, let owner = owners[root], owner != user else { continue }
            row.owner = owner
            stored[id] = row
        }
        return readers.subtracting([user])
    }

    /// Takes rows out of the shares they no longer hang off: a model moved from a shared model
    /// to one that no share carries (or that other shares carry) leaves the first share with what
    /// cascades from it, and the participants' devices, as when the share ends. `before` holds
    /// the rows as they were before the batch. Returns the participants to announce it to.
    ///
    /// Runs once the batch is written, after ``joinShares(_:stored:user:on:)``: a model moved
    /// between two shares with the same participant stays on the participant's devices.
    func leaveShares(_ written: [String], stored: [String: StoredSyncRow], before: [String: StoredSyncRow], on connection: PostgresConnection) async throws -> Set<String> {
        guard !shareShape.isEmpty else { return [] }
        // The rows whose cascading parents changed: those naming another parent, and those a
        // parent's list no longer holds.
        var moved: Set<String> = []
        for id in written {
            guard let old = before[id]?.row, old.version != 0, let new = stored[id]?.row else { continue }
            if !new.deleted, shareShape.parents(of: old) != shareShape.parents(of: new) { moved.insert(id) }
            moved.formUnion(Set(shareShape.listedChildren(of: old)).subtracting(shareShape.listedChildren(of: new)))
        }
        guard !moved.isEmpty else { return [] }
        // The batch's rows as written; the children its lists let go, as the server holds them.
        var held = stored.filter { moved.contains($0.key) }
        let unread = moved.filter { held[$0] == nil }
        if !unread.isEmpty { held.merge(try await rows(Array(unread), on: connection)) { written, _ in written } }
        held = held.filter { !$0.value.row.deleted }
        // Each moved row's parents now: those it names, and the batch's rows that list it.
        var parents = held.mapValues { shareShape.parents(of: $0.row) }
        for id in written {
            guard let row = stored[id]?.row else { continue }
            for child in shareShape.listedChildren(of: row) where held[child] != nil { parents[child, default: []].append(id) }
        }
        var binds = PostgresBindings()
        binds.append(Array(Set(held.keys).union(parents.values.joined())))
        let memberships = try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT id, root FROM \(quoted).share_members WHERE id = ANY($1)", binds: binds),
            logger: logger)
        var roots: [String: Set<String>] = [:]
        for try await (id, root) in memberships.decode((String, String).self) { roots[id, default: []].insert(root) }
        var leaving: [String: Set<String>] = [:]
        for (id, row) in held.sorted(by: { $0.key < $1.key }) {
            let left = (roots[id] ?? []).filter { root in root != id && !parents[id, default: []].contains { roots[$0]?.contains(root) == true } }
            guard !left.isEmpty else { continue }
            // What cascades from the row leaves with it.
            let subtree = try await tree(of: row.row, owner: row.owner, on: connection)
            for root in left { leaving[root, default: []].formUnion(subtree) }
        }
        var participants: Set<String> = []
        for (root, ids) in leaving.sorted(by: { $0.key < $1.key }) {
            var forget = PostgresBindings()
            forget.append(root)
            forget.append(Array(ids))
            let left = try await connection.query(
                PostgresQuery(unsafeSQL: "DELETE FROM \(quoted).share_members WHERE root = $1 AND id = ANY($2) RETURNING id", binds: forget),
                logger: logger)
            var members: [String] = []
            for try await id in left.decode(String.self) { members.append(id) }
            let readers = try await self.participants(of: root, on: connection)
            try await remove(members, from: readers, on: connection)
            participants.formUnion(readers)
        }
        return participants
    }

    /// Gives the rows new change numbers, in order (parents before what hangs off them), so that
    /// devices that pulled past them pull them again.
    private func renumber(_ ids: [String], on connection: PostgresConnection) async throws {
        guard !ids.isEmpty else { return }
        var binds = PostgresBindings()
        binds.append(ids)
        try await connection.query(
            PostgresQuery(unsafeSQL: """
                UPDATE \(quoted).rows AS r SET version = n.version, last_client = '' FROM (\
                SELECT u.id, nextval('\(quoted).versions') AS version FROM (\
                SELECT id, position FROM unnest($1::text[]) WITH ORDINALITY AS v(id, position) ORDER BY position) AS u\
                ) AS n WHERE r.id = n.id
                """, binds: binds),
            logger: logger)
    }

    /// The users a model is shared with.
    private func participants(of root: String, on connection: PostgresConnection) async throws -> [String] {
        var binds = PostgresBindings()
        binds.append(root)
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT participant FROM \(quoted).shares WHERE root = $1 ORDER BY participant", binds: binds), logger: logger)
        var users: [String] = []
        for try await user in rows.decode(String.self) { users.append(user) }
        return users
    }

    /// The rows leave the participants' devices, as deletions with change numbers of their own,
    /// except where another share with the participant still carries them or the participant
    /// owns them.
    private func remove(_ ids: [String], from participants: [String], on connection: PostgresConnection) async throws {
        guard !ids.isEmpty, !participants.isEmpty else { return }
        var binds = PostgresBindings()
        binds.append(ids)
        binds.append(participants)
        try await connection.query(
            PostgresQuery(unsafeSQL: """
                INSERT INTO \(quoted).share_removals (participant, id, entity, version, changed_at) \
                SELECT p.participant, r.id, r.entity, nextval('\(quoted).versions'), clock_timestamp() \
                FROM unnest($2::text[]) AS p(participant) JOIN \(quoted).rows r ON r.id = ANY($1) \
                WHERE r.owner <> p.participant AND NOT EXISTS (\
                SELECT 1 FROM \(quoted).share_members o JOIN \(quoted).shares s ON s.root = o.root \
                WHERE o.id = r.id AND s.participant = p.participant)
                """, binds: binds),
            logger: logger)
    }

    // MARK: Support

    /// The live model `id` of the user's, or a problem saying why it cannot be shared.
    private func ownedRoot(_ id: String, by user: String, on connection: PostgresConnection) async throws -> SyncRow {
        guard let stored = try await rows([id], on: connection)[id], !stored.row.deleted else {
            throw SyncProblem(code: "badRequest", message: "The server holds no model \(id): synchronize before sharing a new model")
        }
        guard stored.owner == user else {
            throw SyncProblem(code: "badRequest", message: "The \(stored.row.entity) \(id) belongs to another user: only its owner shares it")
        }
        return stored.row
    }

    /// The live rows of `owner` a share of `root` carries: the root and what cascades from it, to
    /// any depth.
    private func tree(of root: SyncRow, owner: String, on connection: PostgresConnection) async throws -> [String] {
        var members = [root.id]
        var seen: Set<String> = [root.id]
        var frontier = [root]
        while !frontier.isEmpty {
            var next: [String] = frontier.flatMap(shareShape.listedChildren)
            var byLink: [ShareTreeShape.InverseLink: [String]] = [:]
            for row in frontier {
                for link in shareShape.inverseLinks[row.entity] ?? [] { byLink[link, default: []].append(row.id) }
            }
            for (link, parents) in byLink {
                var binds = PostgresBindings()
                binds.append(link.children)
                binds.append(owner)
                binds.append(link.inverse)
                binds.append(parents)
                let children = try await connection.query(
                    PostgresQuery(unsafeSQL: """
                        SELECT id FROM \(quoted).rows WHERE entity = ANY($1) AND owner = $2 AND NOT deleted \
                        AND ("values"::jsonb -> $3 ->> 'ref') = ANY($4)
                        """, binds: binds),
                    logger: logger)
                for try await id in children.decode(String.self) { next.append(id) }
            }
            let fresh = next.filter { seen.insert($0).inserted }
            let loaded = try await rows(fresh, on: connection)
            frontier = fresh.compactMap { id in loaded[id].flatMap { $0.owner == owner && !$0.row.deleted ? $0.row : nil } }
            members += frontier.map(\.id)
        }
        return members
    }

    /// The rows recorded as carried by a share of `root`.
    private func recordedMembers(of root: String, on connection: PostgresConnection) async throws -> [String] {
        var binds = PostgresBindings()
        binds.append(root)
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT id FROM \(quoted).share_members WHERE root = $1 ORDER BY id", binds: binds), logger: logger)
        var ids: [String] = []
        for try await id in rows.decode(String.self) { ids.append(id) }
        return ids
    }

    private func addMembers(_ members: [(root: String, id: String)], on connection: PostgresConnection) async throws {
        guard !members.isEmpty else { return }
        var binds = PostgresBindings()
        binds.append(members.map(\.root))
        binds.append(members.map(\.id))
        try await connection.query(
            PostgresQuery(unsafeSQL: """
                INSERT INTO \(quoted).share_members (root, id) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING
                """, binds: binds),
            logger: logger)
    }

    /// Wakes the users' waiting pulls in every server process when the transaction commits.
    func notify(_ users: [String], on connection: PostgresConnection) async throws {
        var binds = PostgresBindings()
        binds.append(ChangeRelay.channel(of: namespace))
        binds.append(users)
        try await connection.query(PostgresQuery(unsafeSQL: "SELECT pg_notify($1, u) FROM unnest($2::text[]) AS u", binds: binds), logger: logger)
    }
}

/// What a user may do with another user's row through the shares they take part in.
enum SharedAccess: Sendable, Equatable {
    /// A share ended: the row left the user's devices.
    case removed
    case readOnly(owner: String)
    case readWrite(owner: String)

    /// Which of two accesses wins.
    var rank: Int {
        switch self {
        case .removed: 0
        case .readOnly: 1
        case .readWrite: 2
        }
    }
}
