import Foundation
import OpenSwiftData

/// Connections for reads that find the store's own connection busy: a request's fetch need not
/// wait for another request's save or fetch.
///
/// Connections are opened on demand, up to a maximum, and kept for the store's lifetime; a read
/// that finds all of them busy waits for the first to be free. A connection that was lost connects
/// again on its next read. Readers never open transactions and never listen for notifications.
final class PostgresReaderPool: @unchecked Sendable {
    // @unchecked Sendable: `idle` and `opened` are used only inside `condition`; a session taken
    // from `idle` is used by one thread until it is put back.

    let location: PostgresLocation
    let maximum: Int
    private let condition = NSCondition()
    private var idle: [PostgresSession] = []
    /// Sessions opened or being opened, idle or in use.
    private var opened = 0

    init(_ location: PostgresLocation, maximum: Int) {
        self.location = location
        self.maximum = maximum
    }

    /// Runs `body` with a reader of its own, opening one if none is idle and the maximum allows.
    func withReader<R>(_ body: (PostgresSession) throws -> R) throws -> R {
        let reader = try take()
        defer { putBack(reader) }
        return try body(reader)
    }

    private func take() throws -> PostgresSession {
        condition.lock()
        while idle.isEmpty && opened >= maximum { condition.wait() }
        if let reader = idle.popLast() {
            condition.unlock()
            return reader
        }
        opened += 1
        condition.unlock()
        do {
            return try PostgresSession(location)
        } catch {
            condition.lock()
            opened -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func putBack(_ reader: PostgresSession) {
        condition.lock()
        idle.append(reader)
        condition.signal()
        condition.unlock()
    }
}
