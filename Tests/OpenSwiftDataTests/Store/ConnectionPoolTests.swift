import Foundation
import Testing
@testable import OpenSwiftData

/// The pool of a store's read connections: a failed open or a closed pool reaches the callers
/// waiting for a connection.
struct ConnectionPoolTests {
    /// Records, in order, what callers got: a connection, or an error.
    private final class Turns: @unchecked Sendable {
        private let lock = NSLock()
        private var order: [String] = []
        func note(_ name: String) { lock.withLock { order.append(name) } }
        var names: [String] { lock.withLock { order } }
    }

    /// Starts a thread that takes a connection from `pool` once it is its turn, notes its name,
    /// and gives the connection back, or notes the type of the error it got instead; returns once
    /// the thread waits for a connection.
    private func startWaiting(_ name: String, on pool: ConnectionPool<Int>, turns: Turns, done: DispatchGroup) {
        let waitingBefore = pool.waitingCallers
        done.enter()
        Thread {
            do {
                try pool.withConnection { _ in turns.note(name) }
            } catch {
                turns.note("\(name) threw \(type(of: error))")
            }
            done.leave()
        }.start()
        while pool.waitingCallers == waitingBefore { Thread.sleep(forTimeInterval: 0.001) }
    }

    @Test func aConnectionThatFailsToOpenLetsAWaitingCallerOpenOne() throws {
        struct Refused: Error {}
        let attempts = Turns()
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let pool = ConnectionPool<Int>(maximum: 1) {
            attempts.note("open")
            guard attempts.names.count > 1 else {
                holding.signal()
                release.wait()
                throw Refused()
            }
            return 7
        }
        let failed = DispatchGroup()
        failed.enter()
        Thread {
            #expect(throws: Refused.self) { try pool.withConnection { _ in } }
            failed.leave()
        }.start()
        holding.wait()
        let turns = Turns()
        let done = DispatchGroup()
        startWaiting("waiting", on: pool, turns: turns, done: done)
        release.signal()
        failed.wait()
        done.wait()
        #expect(turns.names == ["waiting"])
        #expect(attempts.names == ["open", "open"])
        #expect(try pool.withConnection { $0 } == 7)
    }

    @Test func closingThePoolReachesEveryWaitingCallerAndEveryLaterOne() throws {
        struct Closed: Error {}
        let pool = ConnectionPool<Int>(maximum: 1) { 1 }
        let outcomes = Turns()
        let done = DispatchGroup()
        var released: [Int] = []
        try pool.withConnection { _ in
            for name in ["a", "b"] { startWaiting(name, on: pool, turns: outcomes, done: done) }
            pool.close(reason: Closed()) { released.append($0) }
            done.wait()
            #expect(released.isEmpty, "the connection in use is released when it comes back")
        }
        #expect(released == [1])
        #expect(Set(outcomes.names) == ["a threw Closed", "b threw Closed"])
        #expect(throws: Closed.self) { try pool.withConnection { _ in } }
    }
}
