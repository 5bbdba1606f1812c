import Dispatch
import Foundation
@testable import OpenSwiftData
@testable import OpenSwiftDataPostgres
import Testing

/// Whose turn it is to send the one-statement saves waiting for a container's connection: one
/// save at a time sends; a save another one's trip carried goes on without a turn of its own
/// (so without the connection), and a save that came during a trip sends the next one.
struct PostgresWaitingSavesTests {
    private func pendingSave(token: Int64) throws -> PendingSave {
        let entity = try #require(Schema([Ticket.self, Desk.self]).entity(for: Ticket.self))
        return PendingSave(kind: .upsert, entity: entity, sequence: "sequence", sql: "", arguments: [], changesArgument: 0, token: token)
    }

    /// Runs `waiting.waitForOutcomeOrTurn(save)` on a thread of its own.
    private final class Waiter: @unchecked Sendable {
        // @unchecked Sendable: `tookTurn` is written before `done.signal()` and read after `done.wait()`.
        var tookTurn: Bool?
        let done = DispatchSemaphore(value: 0)

        init(_ save: PendingSave, in waiting: WaitingSaves) {
            Thread { [self] in
                tookTurn = waiting.waitForOutcomeOrTurn(save)
                done.signal()
            }.start()
        }
    }

    @Test func aSaveAnotherTripCarriedGoesOnAndOneThatCameDuringTheTripSendsNext() throws {
        let waiting = WaitingSaves()
        let (first, carried, later) = (try pendingSave(token: 1), try pendingSave(token: 2), try pendingSave(token: 3))

        waiting.add(first)
        #expect(waiting.waitForOutcomeOrTurn(first), "no save is sending: the first takes the turn")
        waiting.add(carried)
        let carriedWaiter = Waiter(carried, in: waiting)
        #expect(carriedWaiter.done.wait(timeout: .now() + 0.2) == .timedOut, "a save waits while another sends")

        let sent = waiting.takeAll()
        #expect(sent.map(\.token) == [1, 2], "the sender takes every save waiting, its own first")
        waiting.add(later)
        let laterWaiter = Waiter(later, in: waiting)
        for save in sent { save.outcome = .success([]) }
        waiting.finishSending(sent)

        #expect(carriedWaiter.done.wait(timeout: .now() + 10) == .success)
        #expect(carriedWaiter.tookTurn == false, "the carried save has its outcome and takes no turn")
        #expect(laterWaiter.done.wait(timeout: .now() + 10) == .success)
        #expect(laterWaiter.tookTurn == true, "the save that came during the trip sends the next one")
        #expect(waiting.takeAll().map(\.token) == [3])
    }

    @Test func ofManySavesWaitingForATurnOneSendsAtATime() throws {
        let waiting = WaitingSaves()
        let saves = try (1...6).map { try pendingSave(token: Int64($0)) }
        let holder = try pendingSave(token: 0)
        waiting.add(holder)
        #expect(waiting.waitForOutcomeOrTurn(holder))
        _ = waiting.takeAll()
        for save in saves { waiting.add(save) }
        let waiters = saves.map { Waiter($0, in: waiting) }
        waiting.finishSending([holder])

        // Exactly one waiter gets the turn; it sends all of them, and the rest go on delivered.
        var turns = 0
        var finished = Set<Int>()
        var rounds = 0
        while finished.count < waiters.count {
            rounds += 1
            guard rounds < 1_000 else {
                Issue.record("\(waiters.count - finished.count) saves still wait: none took the turn")
                break
            }
            for (index, waiter) in waiters.enumerated() where !finished.contains(index) {
                guard waiter.done.wait(timeout: .now() + 0.01) == .success else { continue }
                finished.insert(index)
                if waiter.tookTurn == true {
                    turns += 1
                    let sent = waiting.takeAll()
                    #expect(sent.count == saves.count, "the sender takes every save waiting")
                    for save in sent { save.outcome = .success([]) }
                    waiting.finishSending(sent)
                }
            }
        }
        #expect(turns == 1, "one save sent for all")
    }
}
