import Foundation
@testable import OpenSwiftDataSyncServer
import Testing

/// The waiting pulls woken together read their rows in few batches; pulls asking the same share
/// one answer; no pull gets an answer read before it asked; a failed read fails each of its pulls;
/// a cancelled pull stops waiting.
struct SyncBatchedScansTests {
    /// Records each batch read, each held until released.
    private actor Reads {
        var batches: [[BatchedScans.Scan]] = []
        private var gates: [CheckedContinuation<Void, Never>] = []
        private var released = false
        var failure: (any Error)?

        func read(_ scans: [BatchedScans.Scan]) async throws -> [BatchedScans.Scan: ScannedRows] {
            batches.append(scans)
            if !released { await withCheckedContinuation { gates.append($0) } }
            if let failure { throw failure }
            var answers: [BatchedScans.Scan: ScannedRows] = [:]
            for scan in scans {
                var rows = ScannedRows(user: scan.user, cursor: scan.cursor, limit: scan.limit)
                rows.trimmedThrough = scan.cursor
                answers[scan] = rows
            }
            return answers
        }

        func release() {
            released = true
            for gate in gates { gate.resume() }
            gates = []
        }

        func fail(with error: any Error) { failure = error }
        var waitingCount: Int { gates.count }
    }

    private struct ReadFailed: Error {}

    @Test func pullsAskingWhileEveryLaneReadsAreReadInOneBatch() async throws {
        let reads = Reads()
        let scans = BatchedScans(lanes: 1) { try await reads.read($0) }
        let first = Task { try await scans.rows(of: "alice", after: 7, limit: 10) }
        while await reads.waitingCount == 0 { await Task.yield() }
        // Asked while the first read runs: the same scan twice (two devices of Alice's), and
        // others of other users, cursors and page sizes.
        let asked = [("alice", 7, 10), ("alice", 7, 10), ("bob", 7, 10), ("alice", 8, 10), ("carol", 7, 50)]
        let later = asked.map { user, cursor, limit in Task { try await scans.rows(of: user, after: Int64(cursor), limit: limit) } }
        while await scans.queuedCount < asked.count { await Task.yield() }
        await reads.release()
        #expect(try await first.value.user == "alice")
        for (task, (user, cursor, limit)) in zip(later, asked) {
            let rows = try await task.value
            #expect(rows.user == user && rows.cursor == Int64(cursor) && rows.limit == limit && rows.trimmedThrough == Int64(cursor))
        }
        let batches = await reads.batches
        #expect(batches.count == 2, "the first read, then one batch of everything asked meanwhile")
        #expect(batches.last?.count == 4, "the same scan asked twice is read once")
        #expect(Set(batches.last ?? []).count == 4)
    }

    @Test func aPullAskingAfterAReadBeganIsNotAnsweredFromIt() async throws {
        let reads = Reads()
        let scans = BatchedScans(lanes: 2) { try await reads.read($0) }
        let first = Task { try await scans.rows(of: "alice", after: 7, limit: 10) }
        while await reads.waitingCount == 0 { await Task.yield() }
        // The same scan, asked once the first read began: a read of its own, on the free lane.
        let second = Task { try await scans.rows(of: "alice", after: 7, limit: 10) }
        while await reads.waitingCount < 2 { await Task.yield() }
        await reads.release()
        _ = try await (first.value, second.value)
        #expect(await reads.batches.count == 2)
        for _ in 0..<3 { _ = try await scans.rows(of: "alice", after: 7, limit: 10) }
        #expect(await reads.batches.count == 5)
    }

    @Test func aFailedReadFailsEachOfItsPullsAndTheNextReadsAgain() async throws {
        let reads = Reads()
        let scans = BatchedScans(lanes: 1) { try await reads.read($0) }
        await reads.fail(with: ReadFailed())
        let first = Task { try await scans.rows(of: "alice", after: 1, limit: 10) }
        while await reads.waitingCount == 0 { await Task.yield() }
        let pulls = (0..<3).map { index in Task { try await scans.rows(of: "user\(index)", after: 1, limit: 10) } }
        while await scans.queuedCount < 3 { await Task.yield() }
        await reads.release()
        await #expect(throws: ReadFailed.self) { try await first.value }
        for pull in pulls { await #expect(throws: ReadFailed.self) { try await pull.value } }
        await reads.fail(with: CancellationError())
        await #expect(throws: CancellationError.self) { try await scans.rows(of: "alice", after: 1, limit: 10) }
    }

    @Test func aCancelledPullStopsWaitingAndTheOthersGetTheirAnswers() async throws {
        let reads = Reads()
        let scans = BatchedScans(lanes: 1) { try await reads.read($0) }
        let first = Task { try await scans.rows(of: "alice", after: 1, limit: 10) }
        while await reads.waitingCount == 0 { await Task.yield() }
        let queued = Task { try await scans.rows(of: "bob", after: 1, limit: 10) }
        let other = Task { try await scans.rows(of: "bob", after: 1, limit: 10) }
        while await scans.queuedCount < 2 { await Task.yield() }
        // One pull whose read runs, one whose batch has not begun: both stop at once.
        first.cancel()
        queued.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        await #expect(throws: CancellationError.self) { try await queued.value }
        await reads.release()
        #expect(try await other.value.user == "bob")
        #expect(await reads.batches.count == 2)
    }
}
