import Foundation

/// Connections handed out one caller at a time: a store's readers.
///
/// Connections are opened on demand, up to a maximum, and kept while the pool lives. Callers that
/// find them all busy wait in line, first come first served: a returned connection goes to the
/// caller that has waited longest, never to one that arrives after it, so that under load no
/// request waits for many others' turns (a server's slowest requests stay close to its typical
/// ones). Opening happens outside the pool's lock, so a slow connect (a server across a network)
/// holds up only its own caller.
package final class ConnectionPool<Connection>: @unchecked Sendable {
    // @unchecked Sendable: `idle`, `opened`, `waiters` and `closed` are used only while `lock` is
    // held, and a connection is used by the one caller that took it out of `idle` or was handed it.

    private let maximum: Int
    private let open: @Sendable () throws -> Connection
    private let lock = NSLock()
    private var idle: [Connection] = []
    /// Connections opened or being opened, idle or in use.
    private var opened = 0
    /// The callers waiting for a connection, longest-waiting first from `waitersStart`.
    private var waiters: [Waiter] = []
    private var waitersStart = 0
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
        lock.lock()
        defer { lock.unlock() }
        return waiters.count - waitersStart
    }

    private func checkOut() throws -> Connection {
        lock.lock()
        let turn: Turn
        if let closed {
            turn = .closed(closed.reason)
        } else if waitersStart < waiters.count {
            turn = wait()
        } else if let connection = idle.popLast() {
            turn = .connection(connection)
        } else if opened < maximum {
            opened += 1
            turn = .open
        } else {
            turn = wait()
        }
        lock.unlock()
        switch turn {
        case .connection(let connection): return connection
        case .closed(let reason): throw reason
        case .open:
            do {
                return try open()
            } catch {
                lock.lock()
                opened -= 1
                // The connection this caller could not open may be opened by the next in line.
                if closed == nil, let next = nextWaiter() {
                    opened += 1
                    next.give(.open)
                }
                lock.unlock()
                throw error
            }
        }
    }

    /// Joins the line and waits for a turn; called with `lock` held, returns with it held.
    private func wait() -> Turn {
        let waiter = Waiter()
        waiters.append(waiter)
        lock.unlock()
        let waitStarted = observer != nil ? StoreObserver.now() : nil
        let turn = waiter.turn()
        if let waitStarted { observer?.waitedForConnection(since: waitStarted, maximum: maximum) }
        lock.lock()
        return turn
    }

    /// Takes the longest-waiting caller out of the line; called with `lock` held.
    private func nextWaiter() -> Waiter? {
        guard waitersStart < waiters.count else { return nil }
        let waiter = waiters[waitersStart]
        waitersStart += 1
        if waitersStart == waiters.count || waitersStart >= 1_024 {
            waiters.removeFirst(waitersStart)
            waitersStart = 0
        }
        return waiter
    }

    private func checkIn(_ connection: Connection) {
        lock.lock()
        if let closed {
            lock.unlock()
            closed.release(connection)
            return
        }
        if let next = nextWaiter() {
            next.give(.connection(connection))
        } else {
            idle.append(connection)
        }
        lock.unlock()
    }

    /// Closes the pool: the idle connections now, through `release`, and each one in use when its
    /// caller gives it back; every later caller, and every caller waiting for a connection, gets
    /// `reason`. Closing a closed pool does nothing.
    package func close(reason: any Error, release: @escaping (Connection) -> Void) {
        lock.lock()
        guard closed == nil else {
            lock.unlock()
            return
        }
        closed = (reason, release)
        let idle = self.idle
        self.idle.removeAll()
        while let waiter = nextWaiter() { waiter.give(.closed(reason)) }
        lock.unlock()
        for connection in idle { release(connection) }
    }

    /// What a caller gets from the pool: a connection, leave to open one, or the reason the pool
    /// was closed.
    private enum Turn {
        case connection(Connection)
        case open
        case closed(any Error)
    }

    /// A caller waiting in line, woken when the pool gives it its turn.
    private final class Waiter: @unchecked Sendable {
        // @unchecked Sendable: `given` is used only while `condition` is held.
        private let condition = NSCondition()
        private var given: Turn?

        /// Hands the waiter its turn and wakes it.
        func give(_ turn: Turn) {
            condition.lock()
            given = turn
            condition.signal()
            condition.unlock()
        }

        /// Waits until the waiter is given its turn.
        func turn() -> Turn {
            condition.lock()
            defer { condition.unlock() }
            while true {
                if let given { return given }
                condition.wait()
            }
        }
    }
}
