import Foundation

/// Read-only connections to one WAL database, handed out one caller at a time.
///
/// In WAL mode readers never block the writer or each other, so fetches from several threads run in
/// parallel. Connections are opened on demand, up to `capacity`; a caller that finds them all busy
/// waits for one to be returned. Each connection keeps its own prepared-statement cache.
final class ReaderPool: @unchecked Sendable {
    // @unchecked Sendable: `idle` and `opened` are only touched while `condition` is locked, and a
    // connection is used by the one caller that took it out of `idle`.

    private let path: String
    private let capacity: Int
    private let condition = NSCondition()
    private var idle: [SQLiteConnection] = []
    private var opened = 0

    init(path: String, capacity: Int = max(2, min(ProcessInfo.processInfo.activeProcessorCount, 8))) {
        self.path = path
        self.capacity = capacity
    }

    /// Runs `body` with a reader connection of its own.
    func withConnection<R>(_ body: (SQLiteConnection) throws -> R) throws -> R {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection)
    }

    private func checkOut() throws -> SQLiteConnection {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let connection = idle.popLast() { return connection }
            if opened < capacity {
                opened += 1
                do {
                    let connection = try SQLiteConnection(path: path, readOnly: true, create: false)
                    try connection.execute("PRAGMA cache_size=-8192; PRAGMA temp_store=MEMORY")
                    return connection
                } catch {
                    opened -= 1
                    throw error
                }
            }
            condition.wait()
        }
    }

    private func checkIn(_ connection: SQLiteConnection) {
        condition.lock()
        idle.append(connection)
        condition.signal()
        condition.unlock()
    }
}
