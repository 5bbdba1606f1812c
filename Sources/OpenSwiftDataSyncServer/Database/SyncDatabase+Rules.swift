import OpenSwiftDataSync

extension SyncDatabase {
    /// The changes of a push the rules (``SyncRules``) allow, in their order, and a refusal for
    /// each they refuse. Without rules, every change.
    func checkRules(_ changes: [SyncChange], user: String, stored: [String: StoredSyncRow]) -> (allowed: [SyncChange], refusals: [SyncRefusal]) {
        guard let rules else { return (changes, []) }
        var allowed: [SyncChange] = []
        var refusals: [SyncRefusal] = []
        for change in changes {
            let held = stored[change.id]?.row
            if let held, !isReadable(held, by: user) {
                refusals.append(SyncRefusal(entity: change.entity, id: change.id, reason: "\(user) may not read this \(change.entity)"))
                continue
            }
            let kind: SyncProposedChange.Kind = change.deleted ? .delete : held == nil ? .insert : .update
            let proposed = SyncProposedChange(
                user: user, model: change.entity, id: change.id, kind: kind,
                values: change.deleted ? [:] : change.values.mapValues(SyncPropertyValue.init),
                current: held.map { $0.deleted ? [:] : $0.values.mapValues(SyncPropertyValue.init) } ?? [:])
            switch rules.check(proposed) {
            case .allow: allowed.append(change)
            case .refuse(let reason): refusals.append(SyncRefusal(entity: change.entity, id: change.id, reason: reason))
            }
        }
        return (allowed, refusals)
    }

    /// Whether the user's devices hold a row (``SyncRules/mayRead(_:)``); a deleted row is sent
    /// to every device.
    func isReadable(_ row: SyncRow, by user: String) -> Bool {
        guard let rules, !row.deleted else { return true }
        return rules.mayRead(SyncReadableModel(user: user, model: row.entity, id: row.id, values: row.values.mapValues(SyncPropertyValue.init)))
    }

    /// A row as the user's devices receive it: a deletion when the rules hide it.
    func visible(_ row: SyncRow, to user: String) -> SyncRow {
        isReadable(row, by: user) ? row : Self.hidden(row)
    }

    /// A row as a device that may not hold it receives it: its deletion, at its change number.
    static func hidden(_ row: SyncRow) -> SyncRow {
        SyncRow(entity: row.entity, id: row.id, deleted: true, values: [:], clocks: [:], version: row.version)
    }

    /// A pulled row as the user's devices receive it: a deletion when the rules hide it.
    func visible(_ row: PullPage.Row, to user: String) throws -> PullPage.Row {
        guard rules != nil, !row.deleted else { return row }
        var reader = SyncJSONReader(row.values.utf8)
        let values = try reader.readValues()
        let stored = SyncRow(entity: row.entity, id: row.id, deleted: false, values: values, clocks: [:], version: row.version)
        guard !isReadable(stored, by: user) else { return row }
        return PullPage.Row(id: row.id, entity: row.entity, deleted: true, values: "{}", clocks: "{}", version: row.version)
    }

    /// The answer that deletes a pushed model on its device: the server holds none.
    static func deletion(of change: SyncChange) -> SyncRow {
        SyncRow(entity: change.entity, id: change.id, deleted: true, values: [:], clocks: [:], version: 0)
    }
}
