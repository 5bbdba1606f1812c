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

    /// The answer that deletes a pushed model on its device: the server holds none.
    static func deletion(of change: SyncChange) -> SyncRow {
        SyncRow(entity: change.entity, id: change.id, deleted: true, values: [:], clocks: [:], version: 0)
    }
}
