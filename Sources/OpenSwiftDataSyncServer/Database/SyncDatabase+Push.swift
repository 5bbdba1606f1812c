import Foundation
import OpenSwiftDataSync
import PostgresNIO

extension SyncDatabase {
    /// Applies a batch of changes in one transaction: deletions first, then the rest; per property,
    /// the later clock wins; a deletion wins over any change; a new model whose unique values
    /// another of the user's models has becomes that model. Returns what the client must correct,
    /// and the users whose devices read the written rows (the user, and those who share them;
    /// none when nothing was written).
    func push(_ request: PushRequest, user: String) async throws -> (response: PushResponse, readers: [String]) {
        let (response, writtenCount, readers) = try await client.withTransaction(logger: logger) { connection in
            try await connection.query(sql("SELECT pg_advisory_xact_lock(\(lockKey))"), logger: logger)
            let applied = try await checkOwner(of: request.client, user: user, on: connection)
            var aliases = try await aliasTargets(of: request.changes, on: connection)
            var changes = request.changes.map { $0.resolving(aliases).seen(throughBatch: applied) }
            var stored = try await rows(Array(Set(changes.map(\.id))), on: connection)
            // The rows whose last change the client has pulled: after this push they are as it holds them.
            let seenByClient = Set(stored.values.filter { $0.row.version <= (request.cursor ?? -1) }.map(\.row.id))
            // What shares let the user do with the batch's rows of other users.
            let foreign = stored.values.filter { $0.owner != user }.map(\.row.id)
            var access = foreign.isEmpty ? [:] : try await sharedAccess(to: foreign, for: user, on: connection)
            if applied >= request.sequence {
                // A batch applied before (its acknowledgment was lost): the state of its rows. A
                // model of it the server no longer holds is answered with the deletion, as when
                // pushed anew: an update of a row deleted since and trimmed, a new model the rules
                // refuse (never written), and a new model deleted and trimmed since the batch was
                // applied (the server held it then: once the user's deletions were trimmed, a new
                // model it does not hold went that way, or was refused for a unique value another
                // model had, which the first answer told as a deletion too). A new model that names
                // the batch that made it is an update here (`seen(throughBatch:)`); the trim check
                // serves clients that do not name it.
                access.merge(try await accessToReferences(of: changes, user: user, on: connection)) { old, _ in old }
                let shared = checkSharing(changes, user: user, stored: stored, access: access)
                let refusals = shared.refusals + checkRules(shared.allowed, user: user, stored: stored).refusals
                let refused = Set(refusals.map(\.id))
                let unheldNew = changes.contains { stored[$0.id] == nil && !$0.deleted && $0.isNew != false }
                let trimmed = unheldNew ? try await trimmedThrough(of: user, on: connection) > 0 : false
                let corrections = changes.compactMap { change in
                    stored[change.id].map { answer($0, to: user, access: access) }
                        ?? (change.isNew == false || refused.contains(change.id) || (trimmed && !change.deleted) ? Self.deletion(of: change) : nil)
                }
                return (PushResponse(sequence: request.sequence, corrections: corrections, conflicts: [], refusals: refusals), 0, [String]())
            }
            var deleted = try await checkReferences(of: changes, user: user, stored: stored, access: &access, on: connection)
            // Changes the shares or the rules refuse are left out whole; new models among them are
            // answered with their deletion, and relationships to them hold nothing.
            let shared = checkSharing(changes, user: user, stored: stored, access: access)
            let ruled = checkRules(shared.allowed, user: user, stored: stored)
            let (allowed, refusals) = (ruled.allowed, shared.refusals + ruled.refusals)
            let refusedNew = Set(refusals.map(\.id).filter { stored[$0] == nil })
            changes = allowed
            deleted.formUnion(refusedNew)
            if recordsChangeLog { try await log(changes, client: request.client, on: connection) }
            var merge = SyncMerge(user: user, resolver: resolver, schema: schema)
            merge.sharedWithUser = Set(access.compactMap { id, access in if case .readWrite = access { id } else { nil } })
            if resolver != nil { merge.baseValues = try await baseValues(of: changes, stored: stored, on: connection) }
            changes.sort { $0.deleted && !$1.deleted }
            // The rows as they were, for the values the batch replaces.
            var before = stored
            for var change in changes {
                if !change.deleted, change.isNew != false, stored[change.id] == nil, let existing = try await holder(of: change, user: user, stored: &stored, on: connection) {
                    // Made on two devices with the same unique values: one model, fields merged.
                    if before[existing] == nil { before[existing] = stored[existing] }
                    aliases[change.id] = existing
                    try await recordAlias(change.id, to: existing, on: connection)
                    change.id = existing
                    merge.correct(existing)
                }
                try merge.apply(change, to: &stored)
            }
            for refusal in refusals where stored[refusal.id] != nil { merge.correct(refusal.id) }
            if !refusedNew.isEmpty {
                // The device holds relationships to the refused models that the server's rows do not.
                for change in changes where change.values.values.contains(where: { $0.referencedIDs.contains(where: refusedNew.contains) }) {
                    merge.correct(aliases[change.id] ?? change.id)
                }
            }
            try await refuseUniqueCollisions(in: &merge, stored: &stored, user: user, on: connection)
            deleted.formUnion(stored.values.filter(\.row.deleted).map(\.row.id))
            // A relationship to a deleted model (or to one no share carries to the user any more)
            // holds nothing, on every device.
            for id in merge.written {
                guard var row = stored[id] else { continue }
                row.row.values = row.row.values.mapValues { $0.resolving(aliases).droppingReferences(to: deleted) }
                stored[id] = row
            }
            // Rows that hang off shared models join their shares (through what they relate to now).
            var readers = try await joinShares(merge.written.sorted(), stored: &stored, user: user, on: connection)
            var written: [(row: StoredSyncRow, lastClient: String)] = []
            for id in merge.written.sorted() {
                guard let row = stored[id] else { continue }
                let isNew = row.row.version == 0
                written.append((row, isNew || seenByClient.contains(id) ? request.client : ""))
            }
            try await write(written, on: connection)
            try await replaceKeys(of: written.map(\.row), on: connection)
            if resolver != nil { try await keepReplacedValues(of: written.map(\.row), before: before, on: connection) }
            // Rows moved off shared models leave those shares (through what they relate to now).
            readers.formUnion(try await leaveShares(merge.written.sorted(), stored: stored, before: before, on: connection))
            let announced = [user] + readers.subtracting([user]).sorted()
            // The batch is applied; when it wrote rows, every server process on the database wakes
            // its pulls of the user when this commits (one statement: a round trip less per push;
            // the UPDATE in WITH runs whether or not a row is announced).
            var binds = PostgresBindings()
            binds.append(request.sequence)
            binds.append(request.client)
            binds.append(ChangeRelay.channel(of: namespace))
            binds.append(announced)
            binds.append(!written.isEmpty)
            try await connection.query(
                PostgresQuery(unsafeSQL: """
                    WITH applied AS (UPDATE \(quoted).clients SET sequence = $1 WHERE id = $2 RETURNING id) \
                    SELECT pg_notify($3, u) FROM applied, unnest($4::text[]) AS u WHERE $5
                    """, binds: binds),
                logger: logger)
            // A row the push made unreadable for the user leaves the device that pushed it too.
            for id in merge.written where stored[id].map({ !isReadable($0.row, by: user) }) == true { merge.correct(id) }
            let corrections = merge.corrected.sorted().compactMap { stored[$0].map { answer($0, to: user, access: access) } }
                + request.changes.filter { refusedNew.contains($0.id) }.map(Self.deletion)
            return (
                PushResponse(sequence: request.sequence, corrections: corrections, conflicts: merge.conflicts, refusals: refusals), written.count,
                written.isEmpty ? [] : announced)
        }
        await noteWrites(writtenCount)
        return (response, readers)
    }

    /// What shares let the user do with the models the batch's models relate to (which
    /// ``checkReferences(of:user:stored:access:on:)`` finds for a batch applied anew).
    private func accessToReferences(of changes: [SyncChange], user: String, on connection: PostgresConnection) async throws -> [String: SharedAccess] {
        let targets = Set(changes.filter { !$0.deleted }.flatMap { $0.values.values.flatMap(\.referencedIDs) })
        guard !targets.isEmpty else { return [:] }
        let foreign = try await rows(Array(targets), on: connection).values.filter { $0.owner != user }.map(\.row.id)
        return foreign.isEmpty ? [:] : try await sharedAccess(to: foreign, for: user, on: connection)
    }

    /// A row as the user's device is told of it: a deletion when it belongs to another user and no
    /// share carries it to the user.
    private func answer(_ row: StoredSyncRow, to user: String, access: [String: SharedAccess]) -> SyncRow {
        switch access[row.row.id] {
        case _ where row.owner == user, .readOnly, .readWrite: visible(row.row, to: user)
        case .removed, nil: Self.hidden(row.row)
        }
    }

    /// The changes of a push the user's shares allow, and a refusal for each other: a change to a
    /// model shared read-only, or no longer shared, with the user, a change that would hang a
    /// model off one shared read-only, and a change relating a model to one no longer shared
    /// with the user. A change to another user's model no share ever carried to the user
    /// is left to the merge, which refuses the whole push.
    func checkSharing(_ changes: [SyncChange], user: String, stored: [String: StoredSyncRow], access: [String: SharedAccess]) -> (allowed: [SyncChange], refusals: [SyncRefusal]) {
        guard !access.isEmpty else { return (changes, []) }
        var allowed: [SyncChange] = []
        var refusals: [SyncRefusal] = []
        for change in changes {
            var reason: String?
            if let held = stored[change.id], held.owner != user {
                switch access[change.id] {
                case .readOnly(let owner): reason = "\(owner) shares this \(change.entity) with \(user) read-only"
                case .removed: reason = "this \(change.entity) is no longer shared with \(user)"
                case .readWrite, nil: break
                }
            }
            if reason == nil, !change.deleted {
                // Hanging a model off a shared one adds it to the share.
                let row = SyncRow(entity: change.entity, id: change.id, deleted: false, values: change.values, clocks: [:], version: 0)
                for parent in shareShape.parents(of: row) {
                    if case .readOnly(let owner) = access[parent] {
                        reason = "\(owner) shares the model this \(change.entity) would belong to with \(user) read-only"
                    }
                    // Another user's shared model stays theirs, under models they share: moved
                    // under one of the user's own, it would leave the user's devices.
                    if let held = stored[change.id], held.owner != user, access[parent] == nil, stored[parent]?.owner != held.owner {
                        reason = "this \(change.entity) is \(held.owner)'s: it moves only under models \(held.owner) shares with \(user)"
                    }
                }
                // A relationship to a model no longer shared with the user is not written, and not
                // dropped in silence either: the change is refused, and its device told.
                for (name, value) in change.values where reason == nil {
                    if let target = value.referencedIDs.first(where: { access[$0] == .removed }) {
                        reason = "\(change.entity).\(name) relates to the model \(target), which is no longer shared with \(user)"
                    }
                }
            }
            if let reason {
                refusals.append(SyncRefusal(entity: change.entity, id: change.id, reason: reason))
            } else {
                allowed.append(change)
            }
        }
        return (allowed, refusals)
    }

    /// Keeps every value of a batch, with its clock, in `change_log`.
    private func log(_ changes: [SyncChange], client: String, on connection: PostgresConnection) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for change in changes {
            let entries: [(String, SyncClock, String)] = change.deleted
                ? [("", change.clocks[""] ?? .zero, "deleted")]
                : try change.values.map { name, value in (name, change.clocks[name] ?? .zero, String(decoding: try encoder.encode(value), as: UTF8.self)) }
            for (property, clock, value) in entries {
                var binds = PostgresBindings()
                binds.append(client)
                binds.append(change.id)
                binds.append(change.entity)
                binds.append(property)
                binds.append(String(decoding: try encoder.encode(clock), as: UTF8.self))
                binds.append(value)
                try await connection.query(
                    PostgresQuery(unsafeSQL: "INSERT INTO \(quoted).change_log (client, id, entity, property, clock, value, logged_at) VALUES ($1, $2, $3, $4, $5, $6, clock_timestamp())", binds: binds),
                    logger: logger)
            }
        }
    }

    // MARK: Uniqueness

    /// The keys of a row's uniqueness constraints: each constraint's values, as text.
    func uniqueKeys(entity: String, values: [String: SyncValue]) -> [String] {
        guard let constraints = schema.entity(named: entity)?.unique else { return [] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return constraints.compactMap { names in
            var parts: [String] = []
            for name in names {
                guard let value = values[name], let text = try? encoder.encode(value) else { return nil }
                parts.append(name + "=" + String(decoding: text, as: UTF8.self))
            }
            return parts.joined(separator: "\u{1F}")
        }
    }

    /// The live model of the user that has one of a new model's unique values, if any, loaded
    /// into `stored`. A model this batch deleted holds none.
    private func holder(of change: SyncChange, user: String, stored: inout [String: StoredSyncRow], on connection: PostgresConnection) async throws -> String? {
        let keys = uniqueKeys(entity: change.entity, values: change.values)
        for id in Set(try await holders(of: keys, entity: change.entity, user: user, on: connection).values).sorted() {
            if stored[id] == nil { stored.merge(try await rows([id], on: connection)) { old, _ in old } }
            if let row = stored[id], !row.row.deleted { return id }
        }
        return nil
    }

    private func holders(of keys: [String], entity: String, user: String, on connection: PostgresConnection) async throws -> [String: String] {
        guard !keys.isEmpty else { return [:] }
        var binds = PostgresBindings()
        binds.append(user)
        binds.append(entity)
        binds.append(keys)
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT key, id FROM \(quoted).unique_keys WHERE owner = $1 AND entity = $2 AND key = ANY($3)", binds: binds),
            logger: logger)
        var result: [String: String] = [:]
        for try await (key, id) in rows.decode((String, String).self) { result[key] = id }
        return result
    }

    /// Takes back a change that would give a model unique values another model has: the property
    /// keeps its stored value, and the client hears of it as a conflict and a correction.
    private func refuseUniqueCollisions(in merge: inout SyncMerge, stored: inout [String: StoredSyncRow], user: String, on connection: PostgresConnection) async throws {
        // The unique values of the batch's rows before the one at hand (as they ended up), by entity.
        var earlier: Set<String> = []
        for id in merge.written.sorted() {
            defer {
                if let row = stored[id], !row.row.deleted {
                    earlier.formUnion(uniqueKeys(entity: row.row.entity, values: row.row.values).map { row.row.entity + "\u{1F}" + $0 })
                }
            }
            guard let row = stored[id], !row.row.deleted, let constraints = schema.entity(named: row.row.entity)?.unique else { continue }
            let keys = uniqueKeys(entity: row.row.entity, values: row.row.values)
            var taken: [String: String] = [:]
            for (key, holder) in try await holders(of: keys, entity: row.row.entity, user: user, on: connection) where holder != id {
                // A holder this batch deleted holds the values no more.
                if stored[holder] == nil { stored.merge(try await rows([holder], on: connection)) { old, _ in old } }
                if let other = stored[holder], !other.row.deleted { taken[key] = holder }
            }
            // Two rows of this batch with the same values: the second gives way.
            let colliding = Set(taken.keys).union(keys.filter { earlier.contains(row.row.entity + "\u{1F}" + $0) })
            guard !colliding.isEmpty else { continue }
            let previous = try await rows([id], on: connection)[id]
            for (index, key) in keys.enumerated() where colliding.contains(key) {
                for name in constraints[index] {
                    merge.takeBack(name, of: id, in: &stored, restoring: previous)
                }
            }
        }
    }

    /// Records the unique values of rows of models that have uniqueness constraints, in place of
    /// what they had.
    private func replaceKeys(of rows: [StoredSyncRow], on connection: PostgresConnection) async throws {
        let constrained = rows.filter { schema.entity(named: $0.row.entity)?.unique?.isEmpty == false }
        guard !constrained.isEmpty else { return }
        var binds = PostgresBindings()
        binds.append(constrained.map(\.row.id))
        try await connection.query(PostgresQuery(unsafeSQL: "DELETE FROM \(quoted).unique_keys WHERE id = ANY($1)", binds: binds), logger: logger)
        var keys: [(owner: String, entity: String, key: String, id: String)] = []
        for stored in constrained where !stored.row.deleted {
            for key in uniqueKeys(entity: stored.row.entity, values: stored.row.values) {
                keys.append((stored.owner, stored.row.entity, key, stored.row.id))
            }
        }
        guard !keys.isEmpty else { return }
        var insert = PostgresBindings()
        insert.append(keys.map(\.owner))
        insert.append(keys.map(\.entity))
        insert.append(keys.map(\.key))
        insert.append(keys.map(\.id))
        try await connection.query(
            PostgresQuery(unsafeSQL: """
                INSERT INTO \(quoted).unique_keys (owner, entity, key, id) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) \
                ON CONFLICT DO NOTHING
                """, binds: insert),
            logger: logger)
    }

    // MARK: Aliases

    /// The models the batch's identifiers (its changes' and their references') became, where one
    /// became another.
    private func aliasTargets(of changes: [SyncChange], on connection: PostgresConnection) async throws -> [String: String] {
        var ids = Set(changes.map(\.id))
        for change in changes {
            for value in change.values.values {
                switch value {
                case .reference(let id): ids.insert(id)
                case .references(let list): ids.formUnion(list)
                case .value: break
                }
            }
        }
        var binds = PostgresBindings()
        binds.append(Array(ids))
        let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT id, target FROM \(quoted).aliases WHERE id = ANY($1)", binds: binds), logger: logger)
        var result: [String: String] = [:]
        for try await (id, target) in rows.decode((String, String).self) { result[id] = target }
        return result
    }

    private func recordAlias(_ id: String, to target: String, on connection: PostgresConnection) async throws {
        var binds = PostgresBindings()
        binds.append(id)
        binds.append(target)
        try await connection.query(
            PostgresQuery(unsafeSQL: "INSERT INTO \(quoted).aliases (id, target) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING", binds: binds), logger: logger)
    }
}

extension SyncChange {
    /// The change as the server takes it once it has applied the client's batches through
    /// `applied`: a new model made in one of them is new to it no more. (A batch that made it was
    /// applied, and its answer lost; the batch sent again covers more.) The server answers such a
    /// model, when it no longer holds it (deleted, and its record trimmed), with the deletion, as
    /// any update of it, instead of making it again.
    func seen(throughBatch applied: Int64) -> SyncChange {
        guard isNew == true, let insertedIn, insertedIn <= applied else { return self }
        var copy = self
        copy.isNew = false
        return copy
    }

    /// The change with identifiers that became others replaced.
    func resolving(_ aliases: [String: String]) -> SyncChange {
        guard !aliases.isEmpty else { return self }
        var copy = self
        copy.id = aliases[id] ?? id
        copy.values = values.mapValues { $0.resolving(aliases) }
        return copy
    }
}

extension SyncValue {
    /// The models the value refers to.
    var referencedIDs: [String] {
        switch self {
        case .reference(let id): [id]
        case .references(let ids): ids
        case .value: []
        }
    }

    /// The value without references to the given models.
    func droppingReferences(to deleted: Set<String>) -> SyncValue {
        guard !deleted.isEmpty else { return self }
        switch self {
        case .reference(let id) where deleted.contains(id): return .value(.null)
        case .references(let ids): return .references(ids.filter { !deleted.contains($0) })
        default: return self
        }
    }

    /// The value with identifiers that became others replaced.
    func resolving(_ aliases: [String: String]) -> SyncValue {
        guard !aliases.isEmpty else { return self }
        switch self {
        case .reference(let id): return .reference(aliases[id] ?? id)
        case .references(let ids): return .references(ids.map { aliases[$0] ?? $0 })
        case .value: return self
        }
    }
}
