import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OpenSwiftDataSync
import Testing

/// A server that stops answers the pulls waiting on it, rather than dropping their connections
/// or holding them to the end of their waits.
@Suite(.enabled(if: SyncPostgres.isAvailable, SyncPostgres.skipMessage))
struct SyncServerStopTests {
    @Test(.timeLimit(.minutes(1))) func aStoppingServerAnswersItsWaitingPulls() async throws {
        let server = try await RunningSyncServer.start("stop")
        var request = URLRequest(url: server.url.appending(path: "v1/changes").appending(queryItems: [
            URLQueryItem(name: "after", value: "0"), URLQueryItem(name: "limit", value: "10"), URLQueryItem(name: "wait", value: "20"),
        ]))
        request.setValue("Bearer token-a", forHTTPHeaderField: "Authorization")
        request.timeoutInterval = 60
        let pull = Task { [request] in try await URLSession.shared.data(for: request) }
        while await server.server.waitingPullCount() == 0 { try await Task.sleep(for: .milliseconds(10)) }
        await server.stop()
        let (data, response) = try await pull.value
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let page = try PullResponse(jsonData: data)
        #expect(page.rows.isEmpty && page.upToDate)
    }
}
