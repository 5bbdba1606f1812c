import OpenSwiftData
import PostgresNIO

/// Keys drawn ahead from the store's sequences, so that an insert knows its row's key before it
/// is written: the insert then needs no answer from the server, and a save of one new model sends
/// its statements without waiting between them.
///
/// A key is drawn once and never handed out twice; keys a process draws and never uses (it exits,
/// or a save fails) are gaps, as sequences have anyway. Keys stay valid across rolled-back
/// transactions and lost connections: `nextval` is not transactional.
final class PostgresKeyPool: @unchecked Sendable {
    // @unchecked Sendable: used only by a store's saves, which hold the store's lock.

    /// How many keys beyond the ones needed a draw takes, for the saves that follow.
    static let spare = 128

    private var keys: [String: ArraySlice<Int64>] = [:]

    /// The next `count` keys of a sequence, in ascending order, drawing more when too few are left.
    func take(_ count: Int, from sequence: String, on session: PostgresSession) throws -> ArraySlice<Int64> {
        var available = keys[sequence] ?? []
        if available.count < count {
            let needed = count - available.count + Self.spare
            var bindings = PostgresBindings()
            bindings.append(Int64(needed))
            let drawn = try session.query("SELECT nextval(\(PostgresSQL.literal(sequence))) AS k FROM generate_series(1, $1::int8) ORDER BY k", bindings)
            guard drawn.count == needed else {
                throw SwiftDataError(.storeFailure, reason: "PostgreSQL handed out \(drawn.count) keys of \(needed) from \(sequence). Nothing was saved.")
            }
            available = ArraySlice(Array(available) + drawn.map { PostgresRowReader($0)._int64(0) })
        }
        keys[sequence] = available.dropFirst(count)
        return available.prefix(count)
    }
}
