import Foundation

/// Connections handed out one caller at a time: a store's readers.
///
/// Connections are opened on demand, up to a maximum, and kept while the pool lives; a caller that
/// finds them all busy waits for one to be returned. A returned connection goes to whichever caller
/// asks next, the thread that returned it included, not to the one that has waited longest: handed
/// to a waiting thread, it stays idle until that thread wakes, which cost a short read 7% of its
/// requests per second under load (BENCHMARKS.md, servers). Opening happens outside the pool's
/// lock, so a slow connect (a server across a network) holds up only its own caller.
package final class ConnectionPool<Connection>: @unchecked Sendable {
    // @unchecked Sendable: `idle`, `opened` and `waiting` are used only while `condition` is locked,
    // and a connection is used by the one caller that took it out of `idle`.

    /// The most connections the pool opens.
    package let maximum: Int
    private let open: @Sendable () throws -> Connection
    private let condition = NSCondition()
    private var idle: [Connection] = []
    /// Connections opened or being opened, idle or in use.
    private var opened = 0
    /// Callers waiting for a connection.
    private var waiting = 0
    /// Once the pool is closed: why callers get no connection, and how a connection still in
    /// use is closed when it comes back.
    private var closed: (reason: any Error, release: (Connection) -> Void)?
    /// Where waits for a connection are reported, if anywhere.
    private let observer: StoreObserver?

    /// Creates an empty pool of at most `maximum` connections, each made by `open` when needed;
    /// callers that wait for a connection are reported to `observer`.
    package init(maximum: Int, observer: StoreObserver? = nil, open: @escaping @Sendable () throws -> Connection) {
        self.maximum = maximum
        self.observer = observer
        self.open = open
    }

    /// Runs `body` with a connection of its own, opening one if none is idle and the maximum allows.
    package func withConnection<R>(_ body: (Connection) throws -> R) throws -> R {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection)
    }

    /// How many callers are waiting for a connection.
    package var waitingCallers: Int {
        condition.lock()
        defer { condition.unlock() }
        return waiting
    }

    private func checkOut() throws -> Connection {
        condition.lock()
        var waitStarted: UInt64?
        if closed == nil && idle.isEmpty && opened >= maximum {
            if observer != nil { waitStarted = StoreObserver.now() }
            waiting += 1
            while closed == nil && idle.isEmpty && opened >= maximum { condition.wait() }
            waiting -= 1
        }
        if let closed {
            condition.unlock()
            throw closed.reason
        }
        let connection = idle.popLast()
        if connection == nil { opened += 1 }
        condition.unlock()
        if let waitStarted { observer?.waitedForConnection(since: waitStarted, maximum: maximum) }
        if let connection { return connection }
        do {
            return try open()
        } catch {
            condition.lock()
            opened -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func checkIn(_ connection: Connection) {
        condition.lock()
        if let closed {
            condition.unlock()
            closed.release(connection)
            return
        }
        idle.append(connection)
        condition.signal()
        condition.unlock()
    }

    /// Closes the pool: the idle connections now, through `release`, and each one in use when its
    /// caller gives it back; every later caller, and every caller waiting for a connection, gets
    /// `reason`. Closing a closed pool does nothing.
    package func close(reason: any Error, release: @escaping (Connection) -> Void) {
        condition.lock()
        guard closed == nil else {
            condition.unlock()
            return
        }
        closed = (reason, release)
        let idle = self.idle
        self.idle.removeAll()
        condition.broadcast()
        condition.unlock()
        for connection in idle { release(connection) }
    }
}
