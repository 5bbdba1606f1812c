import Foundation
@testable import OpenSwiftDataSyncServer
import Testing

/// The pulls of one user woken by one announcement read the changed rows once, and no pull gets an
/// answer read before it asked.
struct SyncSharedScansTests {
    /// Counts reads, each held until released.
    private actor Reads {
        var count = 0
        private var gates: [CheckedContinuation<Void, Never>] = []
        private var released = false

        func read(_ user: String, after cursor: Int64) async -> ScannedRows {
            count += 1
            if !released { await withCheckedContinuation { gates.append($0) } }
            return ScannedRows(user: user, cursor: cursor, limit: 10)
        }

        func release() {
            released = true
            for gate in gates { gate.resume() }
            gates = []
        }

        func isWaiting() -> Bool { !gates.isEmpty }
    }

    @Test func pullsAskingWhileAReadRunsShareIt() async throws {
        let scans = SharedScans()
        let reads = Reads()
        let first = Task { try await scans.rows(of: "alice", after: 7, limit: 10, generation: 3) { await reads.read("alice", after: 7) } }
        while await !reads.isWaiting() { await Task.yield() }
        let second = Task { try await scans.rows(of: "alice", after: 7, limit: 10, generation: 3) { await reads.read("alice", after: 7) } }
        // A pull of another user, cursor or announcement reads for itself.
        let others = [
            Task { try await scans.rows(of: "bob", after: 7, limit: 10, generation: 3) { await reads.read("bob", after: 7) } },
            Task { try await scans.rows(of: "alice", after: 8, limit: 10, generation: 3) { await reads.read("alice", after: 8) } },
            Task { try await scans.rows(of: "alice", after: 7, limit: 10, generation: 4) { await reads.read("alice", after: 7) } },
        ]
        while true {
            let (started, shared) = (await reads.count, await scans.sharedCount)
            if started == 4 && shared == 1 { break }
            await Task.yield()
        }
        await reads.release()
        #expect(try await first.value.user == "alice")
        #expect(try await second.value.cursor == 7)
        for other in others { _ = try await other.value }
        #expect(await reads.count == 4)
        #expect(await scans.sharedCount == 1)
    }

    @Test func aPullAskingAfterAReadEndedReadsAgain() async throws {
        let scans = SharedScans()
        let reads = Reads()
        await reads.release()
        for _ in 0..<3 {
            _ = try await scans.rows(of: "alice", after: 7, limit: 10, generation: 3) { await reads.read("alice", after: 7) }
        }
        #expect(await reads.count == 3)
        #expect(await scans.sharedCount == 0)
    }
}
