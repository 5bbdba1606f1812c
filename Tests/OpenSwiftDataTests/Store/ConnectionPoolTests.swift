import Foundation
import Testing
@testable import OpenSwiftData

/// The pool of a store's read connections: a failed open or a closed pool reaches the callers
/// waiting for a connection.
struct ConnectionPoolTests {
    /// Records the order in which callers got their turn.
    private final class Turns: @unchecked Sendable {
        private let lock = NSLock()
        private var order: [String] = []
        func note(_ name: String) { lock.withLock { order.append(name) } }
        var names: [String] { lock.withLock { order } }
    }

    /// Starts a thread that takes a connection from `pool` once it is its turn, notes its name,
    /// and gives the connection back; returns once the thread waits in line.
    private func startWaiting(_ name: String, on pool: ConnectionPool<Int>, turns: Turns, done: DispatchGroup) {
        let waitingBefore = pool.waitingCallers
        done.enter()
        Thread {
            _ = try? pool.withConnection { _ in turns.note(name) }
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
        try pool.withConnection { connection in
            for name in ["a", "b"] {
                let waitingBefore = pool.waitingCallers
                done.enter()
                Thread {
                    do {
                        try pool.withConnection { _ in outcomes.note("\(name) got one") }
                    } catch {
                        outcomes.note("\(name) \(error is Closed ? "closed" : "other")")
                    }
                    done.leave()
                }.start()
                while pool.waitingCallers == waitingBefore { Thread.sleep(forTimeInterval: 0.001) }
            }
            pool.close(reason: Closed()) { released.append($0) }
            done.wait()
            #expect(released.isEmpty, "the connection in use is released when it comes back")
        }
        #expect(released == [1])
        #expect(Set(outcomes.names) == ["a closed", "b closed"])
        #expect(throws: Closed.self) { try pool.withConnection { _ in } }
    }
}
