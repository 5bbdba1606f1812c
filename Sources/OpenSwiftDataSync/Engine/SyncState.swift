import Foundation
import OpenSwiftData

/// What the engine knows, kept in the store beside the models (``CompanionRecord``s), so that it
/// is written in the same transactions as the models it describes and survives any stop.
///
/// - `sync.state`: the client's identifier, the last history transaction the server acknowledged,
///   the server cursor the store is up to date with, the last clock reading the engine issued or saw.
/// - `sync.ids`: each synchronized row's identifier, keyed by `Entity#key`.
/// - `sync.rows`: the row of each identifier, `Entity#key`, keyed by identifier.
struct SyncState: Sendable {
    static let stateDomain = "sync.state"
    static let idsDomain = "sync.ids"
    static let rowsDomain = "sync.rows"

    var client: String
    /// The last history transaction the server acknowledged (a push's sequence).
    var pushedThrough: Int64
    /// The server's change number the store holds everything up to.
    var cursor: Int64
    /// The latest clock reading the engine issued or saw.
    var clock: SyncClock
    /// Whether the store downloads everything again (its models changed), this client's own rows
    /// included, until a pull reaches the end.
    var redownloading = false

    /// The state in the store, with a new client identifier when it has none.
    static func load(from store: ReplicationStore) throws -> (state: SyncState, isNew: Bool) {
        func text(_ key: String) throws -> String? {
            try store.records.companionRecord(domain: stateDomain, key: key).map { String(decoding: $0, as: UTF8.self) }
        }
        guard let client = try text("client") else {
            let client = UUID().uuidString.lowercased()
            return (SyncState(client: client, pushedThrough: 0, cursor: 0, clock: .zero), true)
        }
        var clock = SyncClock.zero
        if let saved = try text("clock") {
            let parts = saved.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, let time = Int64(parts[0]), let counter = Int64(parts[1]) else {
                throw SyncError(.storeFailure, "The sync engine's clock record in the store cannot be read: \(saved)")
            }
            clock = SyncClock(time: time, counter: counter, client: parts[2])
        }
        return (SyncState(
            client: client, pushedThrough: Int64(try text("pushed") ?? "") ?? 0, cursor: Int64(try text("cursor") ?? "") ?? 0,
            clock: clock, redownloading: try text("redownload") == "1"), false)
    }

    /// The records that hold this state.
    var records: [CompanionRecord] {
        let clockText = "\(clock.time) \(clock.counter) \(clock.client)"
        return [
            CompanionRecord(domain: Self.stateDomain, key: "client", text: client),
            CompanionRecord(domain: Self.stateDomain, key: "pushed", text: String(pushedThrough)),
            CompanionRecord(domain: Self.stateDomain, key: "cursor", text: String(cursor)),
            CompanionRecord(domain: Self.stateDomain, key: "clock", text: clockText),
            CompanionRecord(domain: Self.stateDomain, key: "redownload", text: redownloading ? "1" : nil),
            // Deleting history keeps what the server has not acknowledged.
            HistoryRetention.keep(after: pushedThrough),
        ]
    }

    /// The digest of the models the store last synchronized (``SyncSchema/digest``), if any.
    static func schemaDigest(in store: ReplicationStore) throws -> String? {
        try store.records.companionRecord(domain: stateDomain, key: "schema").map { String(decoding: $0, as: UTF8.self) }
    }

    /// The record of the models the store synchronizes.
    static func schemaRecord(_ digest: String) -> CompanionRecord {
        CompanionRecord(domain: stateDomain, key: "schema", text: digest)
    }

    /// The key of a row in `sync.ids`.
    static func rowKey(entity: String, key: Int64) -> String { "\(entity)#\(key)" }

    /// The records that bind a row to its identifier.
    static func binding(entity: String, key: Int64, to id: String) -> [CompanionRecord] {
        let row = rowKey(entity: entity, key: key)
        return [
            CompanionRecord(domain: idsDomain, key: row, text: id),
            CompanionRecord(domain: rowsDomain, key: id, text: row),
        ]
    }

    /// The identifier of a row, if it has one.
    static func id(ofEntity entity: String, key: Int64, in store: ReplicationStore) throws -> String? {
        try store.records.companionRecord(domain: idsDomain, key: rowKey(entity: entity, key: key)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The identifiers of rows (``rowKey(entity:key:)``), by row key; rows without one are absent.
    static func ids(ofRows rowKeys: [String], in store: ReplicationStore) throws -> [String: String] {
        try store.records.companionRecords(domain: idsDomain, keys: rowKeys).mapValues { String(decoding: $0, as: UTF8.self) }
    }

    /// The rows of identifiers, by identifier; identifiers the store has no row for are absent.
    static func rows(of ids: [String], in store: ReplicationStore) throws -> [String: (entity: String, key: Int64)] {
        var result: [String: (entity: String, key: Int64)] = [:]
        for (id, bytes) in try store.records.companionRecords(domain: rowsDomain, keys: ids) {
            if let row = parse(String(decoding: bytes, as: UTF8.self)) { result[id] = row }
        }
        return result
    }

    private static func parse(_ text: String) -> (entity: String, key: Int64)? {
        guard let hash = text.lastIndex(of: "#"), let key = Int64(text[text.index(after: hash)...]) else { return nil }
        return (String(text[..<hash]), key)
    }

    /// The row of an identifier, if the store has one.
    static func row(of id: String, in store: ReplicationStore) throws -> (entity: String, key: Int64)? {
        guard let bytes = try store.records.companionRecord(domain: rowsDomain, key: id) else { return nil }
        return parse(String(decoding: bytes, as: UTF8.self))
    }
}
