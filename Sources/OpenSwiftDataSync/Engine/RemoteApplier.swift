import Foundation
import OpenSwiftData

/// Applies the server's rows to the store in one save: new models made, changed properties set,
/// deleted models deleted (their delete rules applied as on any device), and the records of the
/// engine's state written in the same transaction.
///
/// The save goes through a context of its own, with the engine's author: other contexts merge it,
/// observers see it, the history records it, and the outbox leaves it out. A property changed here
/// and not yet acknowledged by the server keeps its local value; the server decides between the two
/// when it receives the local change.
struct RemoteApplier {
    let store: ReplicationStore
    let entities: [String: ReplicatedEntity]
    let context: ModelContext

    /// Applies `rows`, skipping the properties and rows `pending` names, and saves with `state`.
    ///
    /// A pull is applied a page at a time: a relationship to a model the store does not hold yet
    /// waits for a later page (``DanglingReferences``), and the apply of the page that `endsPull`
    /// stops waiting. On the last page of a snapshot (every row of the user's), `snapshot` holds the
    /// identifiers of all its pages: a synchronized model not among them is deleted, unless it has
    /// changes the server has not acknowledged.
    ///
    /// The models' known clocks (``KnownClocks``) are written in the same save: those of
    /// `acknowledged` (a push's), then those of the rows' applied properties; and `extra`, the
    /// records that keep what the server decided against a push (``KeptResolutions``).
    ///
    /// A live row whose model the store no longer holds, and whose deletion here is not pending,
    /// is made again and bound to its identifier: the server keeps the model (its rules refused
    /// the deletion here, a share carries it here again, its rules let the user read it again).
    ///
    /// - Throws: ``LocalSaveDuringApply`` when a local save committed after `pending` was read
    ///   (the values set here could overwrite it): nothing is written, and the apply can start
    ///   again with the pending rows read anew.
    /// - Returns: The state saved: `state` with the latest clock of the rows.
    @discardableResult
    func apply(
        _ rows: [SyncRow], pending: PendingRows, outbox: Outbox, state: SyncState, endsPull: Bool = false, snapshot: Set<String>? = nil,
        acknowledged: [String: KnownClocks.Update] = [:], records extra: [CompanionRecord] = []
    ) throws -> SyncState {
        var dangling = try DanglingReferences.load(from: store)
        var latest: [String: SyncRow] = [:]
        var order: [String] = []
        for row in rows where entities[row.entity] != nil {
            if latest.updateValue(row, forKey: row.id) == nil { order.append(row.id) }
        }
        var models: [String: AppliedModel] = [:]
        var deletions: [any PersistentModel] = []
        // The store's rows of the pulled identifiers, and their models, in a few reads.
        let locals = try SyncState.rows(of: order, in: store)
        var loaded: [String: any PersistentModel] = [:]
        for (entity, group) in Dictionary(grouping: locals.values, by: \.entity) {
            for (key, model) in try context.existingReplicatedModels(entity: entity, keys: group.map(\.key)) {
                loaded[SyncState.rowKey(entity: entity, key: key)] = model
            }
        }
        for id in order {
            guard let row = latest[id], let entity = entities[row.entity] else { continue }
            if row.deleted { dangling.removeAll(of: id) }
            let local = locals[id]
            let rowKey = local.map { SyncState.rowKey(entity: $0.entity, key: $0.key) }
            if let rowKey, pending.deleted.contains(rowKey) { continue }
            let existing = rowKey.flatMap { loaded[$0] }
            if row.deleted {
                if let existing { deletions.append(existing) }
            } else if let existing {
                models[id] = AppliedModel(model: existing, entity: entities[existing.persistentModelID.entityName] ?? entity, isNew: false, rowKey: rowKey)
            } else {
                // New to the store, or no longer here while the server keeps it: made, and bound
                // to its identifier.
                models[id] = AppliedModel(model: try context.insertReplicatedModel(of: entity), entity: entity, isNew: true, rowKey: nil)
            }
        }
        for id in order {
            guard let row = latest[id], !row.deleted, let applied = models[id] else { continue }
            let (model, entity, isNew, rowKey) = (applied.model, applied.entity, applied.isNew, applied.rowKey)
            let kept = rowKey.flatMap { pending.changed[$0] } ?? []
            for index in entity.properties {
                let name = entity.name(of: index)
                guard !kept.contains(name) else {
                    dangling.set(nil, of: id, property: name)
                    continue
                }
                let value: SnapshotValue
                if let synced = row.values[name] {
                    let resolved = try snapshotValue(synced, models: models)
                    value = resolved.value
                    let clock = KnownClocks.clock(of: name, in: row.clocks)
                    dangling.set(resolved.isComplete ? nil : clock.map { DanglingReferences.Reference(targets: synced.targets, clock: $0) }, of: id, property: name)
                } else if isNew {
                    guard let initial = try context.defaultReplicatedValue(property: index, in: entity) else {
                        throw SyncError(.rejected, "The server sent a new \(entity.name) without a value for \(name), which has no default")
                    }
                    value = initial
                } else {
                    continue
                }
                try context.setReplicatedValue(value, of: model, property: index, in: entity)
            }
        }
        try setWaitingRelationships(&dangling, made: models, page: latest, pending: pending, acknowledged: acknowledged)
        if endsPull { dangling.removeAll() }
        let clocks = try knownClocks(
            after: order.compactMap { latest[$0] }, held: Set(locals.keys), applied: models, pending: pending, acknowledged: acknowledged)
        if let snapshot { deletions += try modelsMissing(from: snapshot, pending: pending) }
        for model in deletions where !model.isDeleted { context.delete(model) }
        var state = state
        for row in rows {
            for clock in row.clocks.values where clock > state.clock { state.clock = clock }
        }
        let created = models.filter(\.value.isNew)
        try context.save(writingCompanionRecords: { [state] in
            // Read in the save's transaction, under the store's write lock: no save can come between.
            // Only the transactions after those `pending` read are read again.
            guard try !outbox.hasLocalTransaction(after: pending.readThrough) else {
                throw LocalSaveDuringApply()
            }
            var records = state.records + dangling.records + extra
            records += clocks.map { KnownClocks.record(of: $0.key, $0.value, entities: entities) }
            for (id, entry) in created {
                guard let key = entry.model.persistentModelID.storeKey else { continue }
                records += SyncState.binding(entity: entry.model.persistentModelID.entityName, key: key, to: id)
            }
            return records
        })
        return state
    }

    /// The known clocks the apply leaves, by identifier (`nil` clocks remove a deleted model's): a
    /// property the apply sets takes the row's clock; one it keeps (a pending local change) keeps
    /// the clock of the value that change replaced. Only models the store `held` before have
    /// clocks to read.
    private func knownClocks(
        after rows: [SyncRow], held: Set<String>, applied: [String: AppliedModel], pending: PendingRows,
        acknowledged: [String: KnownClocks.Update]
    ) throws -> [String: KnownClocks.Update] {
        var known = try KnownClocks.clocks(of: held.subtracting(acknowledged.keys), in: store)
        for (id, update) in acknowledged { known[id] = update.clocks }
        var result = acknowledged
        for row in rows {
            if row.deleted {
                result[row.id] = KnownClocks.Update(entity: row.entity, clocks: nil)
                continue
            }
            guard let model = applied[row.id] else { continue }
            let kept = model.rowKey.flatMap { pending.changed[$0] } ?? []
            guard let earlier = known[row.id] else {
                // A model new to the store (or one without a record yet): the row's clocks, shared
                // rather than copied; a pending change's base stays unknown.
                result[row.id] = KnownClocks.Update(entity: model.entity.name, clocks: kept.isEmpty ? row.clocks : row.clocks.filter { !kept.contains($0.key) })
                continue
            }
            var clocks = KnownClocks.expanded(earlier, entity: model.entity)
            for (name, clock) in row.clocks where !kept.contains(name) { clocks[name] = clock }
            result[row.id] = KnownClocks.Update(entity: model.entity.name, clocks: clocks)
        }
        return result
    }

    /// The synchronized models of the store that a snapshot does not hold: the server deleted
    /// them and trimmed the record of it. A deletion wins over an update, so a model with updates
    /// the server has not acknowledged goes too; one inserted here and not acknowledged yet stays,
    /// and is sent.
    private func modelsMissing(from held: Set<String>, pending: PendingRows) throws -> [any PersistentModel] {
        var missing: [any PersistentModel] = []
        for entity in entities.keys.sorted() {
            let keys = try context.replicatedKeys(entity: entity)
            let ids = try SyncState.ids(ofRows: keys.map { SyncState.rowKey(entity: entity, key: $0) }, in: store)
            let gone = keys.filter { key in
                let rowKey = SyncState.rowKey(entity: entity, key: key)
                guard let id = ids[rowKey] else { return false }   // never sent: stays, and is sent
                return !held.contains(id) && !pending.inserted.contains(rowKey)
            }
            missing += try context.existingReplicatedModels(entity: entity, keys: gone).values
        }
        return missing
    }

    /// Sets the relationships earlier pages left waiting (``DanglingReferences``) on models this
    /// apply `made`, except those of rows on this `page` (set from the page's values), those with a
    /// pending local change, and those whose value changed since (another known clock).
    private func setWaitingRelationships(
        _ dangling: inout DanglingReferences, made models: [String: AppliedModel], page: [String: SyncRow], pending: PendingRows,
        acknowledged: [String: KnownClocks.Update]
    ) throws {
        guard !dangling.isEmpty else { return }
        let made = Set(models.filter(\.value.isNew).keys)
        let waiting = dangling.references.filter { id, properties in
            page[id] == nil && properties.values.contains { $0.targets.contains(where: made.contains) }
        }
        guard !waiting.isEmpty else { return }
        let locals = try SyncState.rows(of: Array(waiting.keys), in: store)
        let known = try KnownClocks.clocks(of: waiting.keys.filter { acknowledged[$0] == nil }, in: store)
        for (id, properties) in waiting {
            for (name, reference) in properties where reference.targets.contains(where: made.contains) {
                // Set again below while some of its models are still to come.
                dangling.set(nil, of: id, property: name)
                guard let local = locals[id], let entity = entities[local.entity],
                      let index = entity.properties.first(where: { entity.name(of: $0) == name }),
                      let relationship = entity.relationship(of: index), let first = reference.targets.first
                else { continue }
                let rowKey = SyncState.rowKey(entity: local.entity, key: local.key)
                guard !pending.deleted.contains(rowKey), pending.changed[rowKey]?.contains(name) != true else { continue }
                let clocks = acknowledged[id] != nil ? acknowledged[id]?.clocks : known[id]
                guard let clocks, KnownClocks.clock(of: name, in: clocks) == reference.clock,
                      let model = try context.existingReplicatedModel(entity: local.entity, key: local.key), !model.isDeleted
                else { continue }
                let resolved = try snapshotValue(relationship.isToMany ? .references(reference.targets) : .reference(first), models: models)
                try context.setReplicatedValue(resolved.value, of: model, property: index, in: entity)
                if !resolved.isComplete { dangling.set(reference, of: id, property: name) }
            }
        }
    }

    /// A pulled value with synchronized identifiers replaced by the store's, and whether the store
    /// holds a model for each.
    private func snapshotValue(_ value: SyncValue, models: [String: AppliedModel]) throws -> (value: SnapshotValue, isComplete: Bool) {
        // A model the store does not hold (deleted here, or never received) is no model: the
        // relationship holds nothing, as a delete rule's nullify leaves it.
        func identifier(_ id: String) throws -> PersistentIdentifier? {
            if let model = models[id]?.model { return model.persistentModelID }
            guard let row = try SyncState.row(of: id, in: store),
                  let model = try context.existingReplicatedModel(entity: row.entity, key: row.key), !model.isDeleted
            else { return nil }
            return model.persistentModelID
        }
        switch value {
        case .value(let value):
            return (value, true)
        case .reference(let id):
            guard let found = try identifier(id) else { return (.null, false) }
            return (.identifier(found), true)
        case .references(let ids):
            let found = try ids.compactMap(identifier)
            return (.identifiers(found), found.count == ids.count)
        }
    }
}

/// A model a pull changes: the store's, or one made for a row new to the store.
private struct AppliedModel {
    let model: any PersistentModel
    let entity: ReplicatedEntity
    /// Whether the model was made for the pull.
    let isNew: Bool
    /// The store's row key of an existing model.
    let rowKey: String?
}

/// A local save committed while the engine applied pulled rows; the apply wrote nothing.
struct LocalSaveDuringApply: Error, CustomStringConvertible {
    var description: String {
        "Local saves kept committing while pulled changes were applied; nothing was applied, and the next synchronization tries again"
    }
}
