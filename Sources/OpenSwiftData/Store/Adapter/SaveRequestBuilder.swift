/// Turns a change set into the snapshots of one save request: inserted models in full, changed
/// models as their last snapshot with the changed properties written over it, deleted models as
/// their last snapshot.
struct SaveRequestBuilder {
    private(set) var inserted: [DefaultSnapshot] = []
    private(set) var updated: [DefaultSnapshot] = []
    private(set) var deleted: [DefaultSnapshot] = []
    /// The keys each deletion of every model of an entity removed.
    private(set) var batchDeleted: [[Int64]] = []
    private let adapter: any SnapshotSource
    private let entities: [Schema.Entity]

    init(adapter: some SnapshotSource, changes: StoreChanges) throws {
        self.adapter = adapter
        self.entities = adapter.entities
        var insertedPosition: [ObjectIdentifier: Int] = [:]
        var updatedPosition: [Int64: Int] = [:]
        for (entity, model) in changes.inserts {
            let writer = writer(for: entity)
            let links = _DeferredLinks()
            try PropertyEncoding.encodeAll(model, of: entity, properties: entity.fields.indices.filter { entity.fields[$0].hasColumn }, to: writer, deferring: links)
            // Models new in this save: their temporary identifiers, which the store replaces.
            for (parameter, target) in links.take() { writer.set(.identifier(target.persistentModelID), property: Int(parameter)) }
            insertedPosition[ObjectIdentifier(model)] = inserted.count
            inserted.append(DefaultSnapshot(persistentIdentifier: model.persistentModelID, values: try values(of: writer, entity: entity)))
        }
        for (entity, model, mask) in changes.updates {
            let key = model._osdState.primaryKey
            var snapshot = try lastSnapshot(of: entity, key: key)
            let writer = writer(for: entity)
            let links = _DeferredLinks()
            for index in entity.fields.indices where mask & (1 << UInt64(index)) != 0 && entity.fields[index].hasColumn {
                try PropertyEncoding.encode(model, property: index, of: entity, to: writer, at: Int32(index), deferring: links)
            }
            for (parameter, target) in links.take() { writer.set(.identifier(target.persistentModelID), property: Int(parameter)) }
            snapshot.values.merge(try values(of: writer, entity: entity)) { _, new in new }
            updatedPosition[key] = updated.count
            updated.append(snapshot)
        }
        for (link, owner, targets) in changes.linkWrites {
            let value = SnapshotValue.identifiers(targets.map(\.persistentModelID))
            if let position = insertedPosition[ObjectIdentifier(owner)] {
                inserted[position].values[link.property] = value
            } else {
                let key = owner._osdState.primaryKey
                if updatedPosition[key] == nil, let name = owner._osdState.entityName, let entity = entities.first(where: { $0.name == name }) {
                    updatedPosition[key] = updated.count
                    updated.append(try lastSnapshot(of: entity, key: key))
                }
                if let position = updatedPosition[key] { updated[position].values[link.property] = value }
            }
        }
        for (entity, key) in changes.deletes {
            deleted.append(try adapter.snapshots(of: entity, keys: [key]).first?.snapshot
                ?? DefaultSnapshot(persistentIdentifier: PersistentIdentifier(storeIdentifier: adapter.identifier, entityName: entity.name, key: .permanent(key)), values: [:]))
        }
        for (entity, filter) in changes.batchDeletes {
            guard filter == nil else {
                throw SwiftDataError(.storeFailure, reason: "A custom store was asked to delete \(entity.name) models by a filter it declined")
            }
            let all = try adapter.allSnapshots(of: entity)
            deleted += all.map(\.snapshot)
            batchDeleted.append(all.map(\.key))
        }
    }

    /// Removes every reference to a deleted model from the other snapshots, adding the snapshots
    /// of unchanged models that referred to one: the store never keeps a reference to a deleted
    /// model, whatever the delete rule.
    mutating func removeReferencesToDeleted() throws {
        guard !deleted.isEmpty else { return }
        let removed = Set(deleted.map(\.persistentIdentifier))
        func cleaned(_ snapshot: DefaultSnapshot) -> DefaultSnapshot? {
            var copy = snapshot
            var changed = false
            for (name, value) in snapshot.values {
                if let kept = value.removingReferences(to: removed) {
                    copy.values[name] = kept
                    changed = true
                }
            }
            return changed ? copy : nil
        }
        for index in inserted.indices { if let clean = cleaned(inserted[index]) { inserted[index] = clean } }
        for index in updated.indices { if let clean = cleaned(updated[index]) { updated[index] = clean } }
        let written = Set(updated.map(\.persistentIdentifier)).union(removed)
        let referring = entities.filter { entity in
            entity.links.values.contains { link in
                switch link.storage {
                case .foreignKey, .link(_, ownerIsSource: true): true
                default: false
                }
            }
        }
        for entity in referring {
            for (snapshot, _) in try adapter.allSnapshots(of: entity) where !written.contains(snapshot.persistentIdentifier) {
                if let clean = cleaned(snapshot) { updated.append(clean) }
            }
        }
    }

    private func writer(for entity: Schema.Entity) -> SnapshotWriter {
        SnapshotWriter(entity: entity, identifierOfKey: { [adapter] in adapter.identifier(ofKey: $0) })
    }

    private func values(of writer: SnapshotWriter, entity: Schema.Entity) throws -> [String: SnapshotValue] {
        if let unknown = writer.unknownKey {
            throw SwiftDataError(.modelValidationFailure, reason: "\(entity.name).\(unknown.property) relates to a model with key \(unknown.key), which the store does not hold")
        }
        var values: [String: SnapshotValue] = [:]
        for (index, value) in writer.values.enumerated() { if let value { values[entity.fields[index].name] = value } }
        return values
    }

    private func lastSnapshot(of entity: Schema.Entity, key: Int64) throws -> DefaultSnapshot {
        guard let snapshot = try adapter.snapshots(of: entity, keys: [key]).first?.snapshot else {
            throw SwiftDataError(.modelNotFound, reason: "The store no longer holds the \(entity.name) being saved")
        }
        return snapshot
    }
}

/// What a save request needs of the adapter: its snapshots and identifiers.
protocol SnapshotSource {
    var identifier: String { get }
    var entities: [Schema.Entity] { get }
    func snapshots(of entity: Schema.Entity, keys: [Int64]) throws -> [(snapshot: DefaultSnapshot, key: Int64)]
    func allSnapshots(of entity: Schema.Entity) throws -> [(snapshot: DefaultSnapshot, key: Int64)]
    func identifier(ofKey key: Int64) -> PersistentIdentifier?
}
