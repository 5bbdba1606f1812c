import OpenSwiftDataSync

/// Merges a batch's changes into the stored rows: per property, the later clock wins; a deletion
/// wins over any change, earlier or later; a change to a deleted row is dropped.
struct SyncMerge {
    let user: String
    /// Decides properties both sides changed, when the server has one.
    var resolver: (any SyncConflictResolver)?
    /// The schema, to check what a resolver returns.
    var schema: SyncSchema?
    /// The rows the merge changed, to write.
    private(set) var written: Set<String> = []
    /// The rows whose stored state differs from what the client sent, to send back.
    private(set) var corrected: Set<String> = []
    /// The pushed values that lost.
    private(set) var conflicts: [SyncConflict] = []
    /// The values the batch's changes name as their bases (``SyncChange/bases``), where the server
    /// keeps them (``SyncDatabase/baseValues(of:stored:on:)``).
    var baseValues: [PastValueKey: SyncValue] = [:]
    /// Rows of other users that shares let the user change.
    var sharedWithUser: Set<String> = []

    init(user: String, resolver: (any SyncConflictResolver)? = nil, schema: SyncSchema? = nil) {
        self.user = user
        self.resolver = resolver
        self.schema = schema
    }

    /// Sends the row back to the client whatever the merge does to it.
    mutating func correct(_ id: String) {
        corrected.insert(id)
    }

    /// Takes back a property's change: its stored value (or none, for a new row) stays, and the
    /// client hears of it.
    mutating func takeBack(_ name: String, of id: String, in rows: inout [String: StoredSyncRow], restoring previous: StoredSyncRow?) {
        guard var row = rows[id] else { return }
        let losing = row.row.clocks[name] ?? .zero
        row.row.values[name] = previous?.row.values[name]
        row.row.clocks[name] = previous?.row.clocks[name]
        if previous == nil {
            // A new row cannot keep values another row has: it is not written at all.
            row.row.deleted = true
        }
        rows[id] = row
        corrected.insert(id)
        conflicts.append(SyncConflict(entity: row.row.entity, id: id, property: name, losing: losing, winning: previous?.row.clocks[name] ?? .zero))
    }

    mutating func apply(_ change: SyncChange, to rows: inout [String: StoredSyncRow]) throws {
        guard var stored = rows[change.id] else {
            if change.isNew == false, !change.deleted {
                // An update of a model deleted so long ago that its record was trimmed: the
                // deletion wins, as over any update; the client is told, and nothing is stored.
                rows[change.id] = StoredSyncRow(row: SyncDatabase.deletion(of: change), owner: user)
                corrected.insert(change.id)
                for (name, clock) in change.clocks where name != "" {
                    conflicts.append(SyncConflict(entity: change.entity, id: change.id, property: name, losing: clock, winning: .zero))
                }
                return
            }
            if !change.deleted, let missing = schema?.missingRequiredValue(of: change.entity, in: change.values) {
                // Every device that pulled the model would fail to make it.
                throw SyncProblem(
                    code: "badRequest",
                    message: "The new \(change.entity) \(change.id) has no value for \(change.entity).\(missing), which is neither optional nor given an initial value")
            }
            rows[change.id] = StoredSyncRow(
                row: SyncRow(entity: change.entity, id: change.id, deleted: change.deleted, values: change.deleted ? [:] : change.values, clocks: change.clocks, version: 0),
                owner: user)
            written.insert(change.id)
            return
        }
        guard stored.owner == user || sharedWithUser.contains(change.id) else {
            throw SyncProblem(code: "badRequest", message: "The \(change.entity) \(change.id) belongs to another user")
        }
        guard stored.row.entity == change.entity else {
            throw SyncProblem(code: "badRequest", message: "The model \(change.id) is a \(stored.row.entity), not a \(change.entity)")
        }
        if stored.row.deleted {
            if !change.deleted {
                corrected.insert(change.id)
                let winning = stored.row.clocks[""] ?? .zero
                for (name, clock) in change.clocks where name != "" {
                    conflicts.append(SyncConflict(entity: change.entity, id: change.id, property: name, losing: clock, winning: winning))
                }
            }
            return
        }
        if change.deleted {
            stored.row.deleted = true
            stored.row.clocks[""] = change.clocks[""] ?? .zero
            rows[change.id] = stored
            written.insert(change.id)
            return
        }
        var changed = false
        for (name, value) in change.values {
            let incoming = change.clocks[name] ?? .zero
            let current = stored.row.clocks[name] ?? .zero
            // A change made over the stored value is no conflict: the later clock (the change's) wins.
            let base = change.bases[name]
            if let resolver, let existing = stored.row.values[name], existing != value, incoming.client != current.client, base != current,
               let decision = try resolve(
                   resolver, change: change, name: name, value: value, existing: existing, incoming: incoming, current: current, base: base) {
                if let kept = decision.value {
                    stored.row.values[name] = kept
                    stored.row.clocks[name] = decision.clock
                    changed = true
                }
                if decision.value != value {
                    corrected.insert(change.id)
                    conflicts.append(SyncConflict(entity: change.entity, id: change.id, property: name, losing: incoming, winning: decision.clock))
                }
                continue
            }
            if incoming > current || stored.row.values[name] == nil {
                stored.row.values[name] = value
                stored.row.clocks[name] = incoming
                changed = true
            } else if incoming < current {
                corrected.insert(change.id)
                conflicts.append(SyncConflict(entity: change.entity, id: change.id, property: name, losing: incoming, winning: current))
            }
        }
        if changed {
            rows[change.id] = stored
            written.insert(change.id)
        }
    }

    /// Asks the resolver; returns the value to store (or `nil` to keep the stored one) and its
    /// clock, or `nil` for the later-clock rule.
    private func resolve(
        _ resolver: any SyncConflictResolver, change: SyncChange, name: String, value: SyncValue, existing: SyncValue,
        incoming: SyncClock, current: SyncClock, base: SyncClock?
    ) throws -> (value: SyncValue?, clock: SyncClock)? {
        let baseValue = base.flatMap { baseValues[PastValueKey(id: change.id, property: name, clock: $0)] }
        let conflict = SyncPropertyConflict(
            model: change.entity, id: change.id, property: name, user: user, incoming: SyncPropertyValue(value), incomingClock: incoming,
            current: SyncPropertyValue(existing), currentClock: current, base: baseValue.map(SyncPropertyValue.init),
            baseClock: baseValue == nil ? nil : base)
        switch resolver.resolve(conflict) {
        case .latest: return nil
        case .incoming: return (value, max(incoming, current))
        case .current: return (nil, current)
        case .merged(let merged):
            if let property = schema?.entity(named: change.entity)?.properties.first(where: { $0.name == name }),
               let problem = property.problem(with: merged.value) {
                throw SyncProblem(code: "resolver", message: "The conflict resolver's value for \(change.entity).\(name) \(problem)")
            }
            let later = max(incoming, current)
            return (merged.value, SyncClock(time: later.time, counter: later.counter + 1, client: later.client))
        }
    }
}
