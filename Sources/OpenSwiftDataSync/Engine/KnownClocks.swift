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

    /// The record of a model's known clocks, or the record's removal when `clocks` is `nil` (a
    /// deleted model).
    static func record(of id: String, _ clocks: [String: SyncClock]?) -> CompanionRecord {
        guard let clocks else { return CompanionRecord(domain: domain, key: id, value: nil) }
        var writer = SyncJSONWriter()
        writer.clocks(clocks)
        return CompanionRecord(domain: domain, key: id, value: writer.bytes)
    }

    /// The records after the server took `changes` (a push it acknowledged): the pushed clocks
    /// over those known, deleted models' records removed.
    static func acknowledging(_ changes: [SyncChange], known: [String: [String: SyncClock]]) -> [String: [String: SyncClock]?] {
        var result: [String: [String: SyncClock]?] = [:]
        for change in changes {
            if change.deleted {
                result[change.id] = .some(nil)
            } else {
                result[change.id] = (known[change.id] ?? [:]).merging(change.clocks) { _, pushed in pushed }
            }
        }
        return result
    }
}
