import Foundation
import OpenSwiftDataSync
import PostgresNIO

/// A property's value at a clock: one the server held before a later change replaced it.
struct PastValueKey: Hashable, Sendable {
    var id: String
    var property: String
    var clock: SyncClock
}

extension SyncDatabase {
    /// Keeps the values `written` replaced (`before` holds the rows as they were), so that a later
    /// change made over one of them (its base) shows a resolver what both sides started from.
    /// Kept only when the server has a resolver; trimmed with the change log.
    func keepReplacedValues(of written: [StoredSyncRow], before: [String: StoredSyncRow], on connection: PostgresConnection) async throws {
        var keys: [PastValueKey] = []
        var values: [String] = []
        for row in written {
            guard let previous = before[row.row.id], !previous.row.deleted else { continue }
            for (name, clock) in previous.row.clocks where name != "" && row.row.clocks[name] != clock {
                guard let value = previous.row.values[name] else { continue }
                keys.append(PastValueKey(id: row.row.id, property: name, clock: clock))
                var writer = SyncJSONWriter()
                try value.write(json: &writer)
                values.append(String(decoding: writer.bytes, as: UTF8.self))
            }
        }
        guard !keys.isEmpty else { return }
        var binds = PostgresBindings()
        binds.append(keys.map(\.id))
        binds.append(keys.map(\.property))
        binds.append(keys.map { Self.text(of: $0.clock) })
        binds.append(values)
        try await connection.query(
            PostgresQuery(unsafeSQL: """
                INSERT INTO \(quoted).past_values (id, property, clock, value, logged_at) \
                SELECT u.id, u.property, u.clock, u.value, clock_timestamp() FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) \
                AS u(id, property, clock, value) ON CONFLICT DO NOTHING
                """, binds: binds),
            logger: logger)
    }

    /// The past values the changes name as their bases, where a base is not the stored value
    /// (a change made over the stored value needs none).
    func baseValues(of changes: [SyncChange], stored: [String: StoredSyncRow], on connection: PostgresConnection) async throws -> [PastValueKey: SyncValue] {
        var wanted: [PastValueKey] = []
        for change in changes where !change.deleted {
            for (name, base) in change.bases where stored[change.id]?.row.clocks[name] != base {
                wanted.append(PastValueKey(id: change.id, property: name, clock: base))
            }
        }
        guard !wanted.isEmpty else { return [:] }
        var binds = PostgresBindings()
        binds.append(wanted.map(\.id))
        binds.append(wanted.map(\.property))
        binds.append(wanted.map { Self.text(of: $0.clock) })
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: """
                SELECT p.id, p.property, p.clock, p.value FROM \(quoted).past_values p \
                JOIN unnest($1::text[], $2::text[], $3::text[]) AS u(id, property, clock) \
                ON p.id = u.id AND p.property = u.property AND p.clock = u.clock
                """, binds: binds),
            logger: logger)
        let clocks = Dictionary(wanted.map { (Self.text(of: $0.clock), $0.clock) }) { first, _ in first }
        var result: [PastValueKey: SyncValue] = [:]
        for try await (id, property, clockText, valueText) in rows.decode((String, String, String, String).self) {
            guard let clock = clocks[clockText] else { continue }
            var reader = SyncJSONReader(valueText.utf8)
            result[PastValueKey(id: id, property: property, clock: clock)] = try SyncValue(json: &reader)
        }
        return result
    }

    /// A clock as `past_values` keys it.
    private static func text(of clock: SyncClock) -> String {
        "\(clock.time) \(clock.counter) \(clock.client)"
    }
}
