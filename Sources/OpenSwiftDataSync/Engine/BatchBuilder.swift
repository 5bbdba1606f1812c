import Foundation
import OpenSwiftData

/// Turns pending rows into the changes of a push: current values of the changed properties, related
/// models by their synchronized identifiers; a related model the server has never seen is added
/// in full, so that no pushed change refers to a model the server lacks.
struct BatchBuilder {
    let store: ReplicationStore
    let entities: [String: ReplicatedEntity]
    let context: ModelContext
    /// The clock of changes without one of their own (models made before the engine started).
    let clock: SyncClock
    private(set) var changes: [SyncChange] = []
    private(set) var bindings: [CompanionRecord] = []
    /// Identifiers given in this batch, by row key.
    private var given: [String: String] = [:]
    private var added: Set<String> = []
    /// Identifiers and models read ahead for the batch's rows, by row key.
    private var knownIDs: [String: String] = [:]
    private var models: [String: any PersistentModel] = [:]
    /// The known clocks of the batch's models (``KnownClocks``), by identifier: their bases.
    private(set) var knownClocks: [String: [String: SyncClock]] = [:]

    init(store: ReplicationStore, entities: [String: ReplicatedEntity], context: ModelContext, clock: SyncClock) {
        self.store = store
        self.entities = entities
        self.context = context
        self.clock = clock
    }

    /// Reads the identifiers and models of rows ahead, in a few reads rather than one per row.
    mutating func prefetch(_ rows: [PendingRow]) throws {
        knownIDs = try SyncState.ids(ofRows: rows.map { SyncState.rowKey(entity: $0.entity.name, key: $0.key) }, in: store)
        knownClocks = try KnownClocks.clocks(of: knownIDs.values, in: store)
        let live = rows.filter { $0.deletedAt == nil }
        for (entity, group) in Dictionary(grouping: live, by: \.entity.name) {
            for (key, model) in try context.existingReplicatedModels(entity: entity, keys: group.map(\.key)) {
                models[SyncState.rowKey(entity: entity, key: key)] = model
            }
        }
    }

    mutating func add(_ row: PendingRow) throws {
        let rowKey = SyncState.rowKey(entity: row.entity.name, key: row.key)
        guard added.insert(rowKey).inserted else { return }
        let known = try id(of: row.entity.name, key: row.key)
        if let deletedAt = row.deletedAt {
            // A model made and deleted before the server saw it needs no change at all.
            if let known {
                changes.append(SyncChange(entity: row.entity.name, id: known, deleted: true, values: [:], clocks: ["": deletedAt]))
            }
            return
        }
        guard let model = try models[rowKey] ?? context.existingReplicatedModel(entity: row.entity.name, key: row.key) else { return }
        let id = known ?? give(entity: row.entity.name, key: row.key)
        let isNew = known == nil || row.inserted
        let names = Set(isNew ? row.entity.properties.map(row.entity.name(of:)) : Array(row.clocks.keys))
        var values: [String: SyncValue] = [:]
        var clocks: [String: SyncClock] = [:]
        var bases: [String: SyncClock] = [:]
        let baseClocks = isNew ? nil : knownClocks[id]
        var related: [PendingRow] = []
        for index in row.entity.properties where names.contains(row.entity.name(of: index)) {
            let name = row.entity.name(of: index)
            let value = try context.replicatedValue(of: model, property: index, in: row.entity)
            values[name] = try syncValue(value, related: &related)
            clocks[name] = row.clocks[name] ?? clock
            bases[name] = baseClocks.flatMap { KnownClocks.clock(of: name, in: $0) }
        }
        changes.append(SyncChange(entity: row.entity.name, id: id, deleted: false, values: values, clocks: clocks, isNew: isNew, insertedIn: row.insertedIn, bases: bases))
        for target in related { try add(target) }
    }

    /// A value with related models named by their synchronized identifiers; models the server has
    /// never seen get one and are added in full.
    private mutating func syncValue(_ value: SnapshotValue, related: inout [PendingRow]) throws -> SyncValue {
        func reference(_ target: PersistentIdentifier) throws -> String? {
            guard let key = target.storeKey, let entity = entities[target.entityName] else { return nil }
            if let id = try id(of: target.entityName, key: key) { return id }
            related.append(PendingRow(entity: entity, key: key, inserted: true))
            return give(entity: target.entityName, key: key)
        }
        switch value {
        case .identifier(let target): return try reference(target).map(SyncValue.reference) ?? .value(.null)
        case .identifiers(let targets): return .references(try targets.compactMap(reference))
        default: return .value(value)
        }
    }

    private func id(of entity: String, key: Int64) throws -> String? {
        let rowKey = SyncState.rowKey(entity: entity, key: key)
        if let id = given[rowKey] ?? knownIDs[rowKey] { return id }
        return try SyncState.id(ofEntity: entity, key: key, in: store)
    }

    private mutating func give(entity: String, key: Int64) -> String {
        let id = UUID().uuidString.lowercased()
        given[SyncState.rowKey(entity: entity, key: key)] = id
        bindings += SyncState.binding(entity: entity, key: key, to: id)
        return id
    }
}
