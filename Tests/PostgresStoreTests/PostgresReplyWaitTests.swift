import Dispatch
@testable import OpenSwiftDataPostgres
import Testing

/// A wait for the server's replies ends: with the replies, or, when they never come, once the
/// connection they would come on is closed. One at a time: each blocks its thread for two to four
/// seconds.
@Suite(.serialized) struct PostgresReplyWaitTests {
    @Test func aWaitOnAClosedConnectionWhoseRepliesNeverComeEnds() {
        let never = DispatchSemaphore(value: 0)
        var checks = 0
        let answered = PostgresSession.wait(for: never) {
            checks += 1
            return true
        }
        #expect(!answered)
        #expect(checks == PostgresSession.closedConnectionChecks)
    }

    @Test func aWaitOnAnOpenConnectionLastsUntilTheReplies() {
        let replies = DispatchSemaphore(value: 0)
        var checks = 0
        let answered = PostgresSession.wait(for: replies) {
            checks += 1
            // The replies come while the connection is open, after more checks than a closed
            // connection gets.
            if checks == PostgresSession.closedConnectionChecks + 1 { replies.signal() }
            return false
        }
        #expect(answered)
        #expect(checks == PostgresSession.closedConnectionChecks + 1)
    }

    @Test func aConnectionThatClosesOnceAndRecoversKeepsWaiting() {
        let replies = DispatchSemaphore(value: 0)
        var checks = 0
        let answered = PostgresSession.wait(for: replies) {
            checks += 1
            if checks == 4 { replies.signal() }
            // Closed at every other check: never long enough to give up.
            return checks.isMultiple(of: 2)
        }
        #expect(answered)
    }
}
