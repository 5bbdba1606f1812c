import Foundation
import OpenSwiftData

/// The clock of each property value the store holds as the server knows it, per synchronized
/// model (`sync.clocks`, keyed by identifier): the clocks of the last pulled or corrected row, and
/// of the device's own acknowledged pushes.
///
/// A local save does not change them: while a property's change is pending, its known clock is
/// that of the value the change replaced, the change's base, which a push sends so that the server
/// can tell a conflict from a change made over its current value, and show a resolver the value
/// both sides started from.
enum KnownClocks {
    static let domain = "sync.clocks"

    /// The key of the clock of every property a record does not name: most of a model's
    /// properties share one clock (all of them, for a model made in one save), which a record
    /// holds once. No property is named `*`.
    private static let shared = "*"

    /// The known clocks of models, by identifier; models without a record are absent.
    static func clocks(of ids: some Collection<String>, in store: ReplicationStore) throws -> [String: [String: SyncClock]] {
        guard !ids.isEmpty else { return [:] }
        var result: [String: [String: SyncClock]] = [:]
        for (id, bytes) in try store.records.companionRecords(domain: domain, keys: Array(ids)) {
            var reader = SyncJSONReader(bytes)
            do {
                result[id] = try reader.readClocks()
            } catch {
                throw SyncError(.storeFailure, "The sync engine's record of the clocks of the model \(id) cannot be read: \(error)")
            }
        }
        return result
    }

    /// The known clock of a property among a model's `clocks` (as ``clocks(of:in:)`` reads them).
    static func clock(of property: String, in clocks: [String: SyncClock]) -> SyncClock? {
        clocks[property] ?? clocks[shared]
    }

    /// The clock of each property of `entity` from `clocks` (as ``clocks(of:in:)`` reads them),
    /// by property: what a change merges into before its record is written again.
    static func expanded(_ clocks: [String: SyncClock]?, entity: ReplicatedEntity?) -> [String: SyncClock] {
        guard let clocks, !clocks.isEmpty else { return [:] }
        guard clocks[shared] != nil else { return clocks }
        guard let entity else { return clocks.filter { $0.key != shared } }
        var result: [String: SyncClock] = [:]
        for index in entity.properties {
            let name = entity.name(of: index)
            result[name] = clock(of: name, in: clocks)
        }
        return result
    }

    /// A model's known clocks to write: its model's name, and `nil` clocks for a deleted model.
    struct Update {
        var entity: String
        var clocks: [String: SyncClock]?
    }

    /// The record of a model's known clocks, or the record's removal for a deleted model. When
    /// every property's clock is known, the clock most of them share is written once; otherwise
    /// each is written, so that a property whose clock is unknown stays so.
    static func record(of id: String, _ update: Update, entities: [String: ReplicatedEntity]) -> CompanionRecord {
        guard let clocks = update.clocks else { return CompanionRecord(domain: domain, key: id, value: nil) }
        var compact = clocks
        if clocks[shared] == nil, let entity = entities[update.entity], clocks.count == entity.properties.count {
            var counts: [SyncClock: Int] = [:]
            for clock in clocks.values { counts[clock, default: 0] += 1 }
            if let (common, count) = counts.max(by: { $0.value < $1.value }), count > 1 {
                compact = clocks.filter { $0.value != common }
                compact[shared] = common
            }
        }
        var writer = SyncJSONWriter()
        writer.clocks(compact)
        return CompanionRecord(domain: domain, key: id, value: writer.bytes)
    }

    /// The records after the server took `changes` (a push it acknowledged): the pushed clocks
    /// over those known, deleted models' records removed.
    static func acknowledging(
        _ changes: [SyncChange], known: [String: [String: SyncClock]], entities: [String: ReplicatedEntity]
    ) -> [String: Update] {
        var result: [String: Update] = [:]
        for change in changes {
            let clocks = change.deleted
                ? nil : expanded(known[change.id], entity: entities[change.entity]).merging(change.clocks) { _, pushed in pushed }
            result[change.id] = Update(entity: change.entity, clocks: clocks)
        }
        return result
    }
}
