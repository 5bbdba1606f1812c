import OpenSwiftDataSync

/// Merges a batch's changes into the stored rows: per property, the later clock wins; a deletion
/// wins over any change, earlier or later; a change to a deleted row is dropped.
struct SyncMerge {
    let user: String
    /// The rows the merge changed, to write.
    private(set) var written: Set<String> = []
    /// The rows whose stored state differs from what the client sent, to send back.
    private(set) var corrected: Set<String> = []
    /// The pushed values that lost.
    private(set) var conflicts: [SyncConflict] = []

    init(user: String) {
        self.user = user
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
            rows[change.id] = StoredSyncRow(
                row: SyncRow(entity: change.entity, id: change.id, deleted: change.deleted, values: change.deleted ? [:] : change.values, clocks: change.clocks, version: 0),
                owner: user)
            written.insert(change.id)
            return
        }
        guard stored.owner == user else {
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
}
