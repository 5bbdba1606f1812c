import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import OpenSwiftDataSync
import Testing

/// A server that stops answers the pulls waiting on it, rather than dropping their connections
/// or holding them to the end of their waits, and answers from its database the requests it had
/// accepted.
@Suite(.enabled(if: SyncPostgres.isAvailable, SyncPostgres.skipMessage), .stopsSyncServers)
struct SyncServerStopTests {
    @Test(.timeLimit(.minutes(3))) func aStoppingServerAnswersItsWaitingPulls() async throws {
        let server = try await RunningSyncServer.start("stop")
        var request = URLRequest(url: server.url.appending(path: "v1/changes").appending(queryItems: [
            URLQueryItem(name: "after", value: "0"), URLQueryItem(name: "limit", value: "10"), URLQueryItem(name: "wait", value: "20"),
        ]))
        request.setValue("Bearer token-a", forHTTPHeaderField: "Authorization")
        request.timeoutInterval = 60
        let pull = Task { [request] in try await URLSession.shared.data(for: request) }
        try await Self.polling(until: { await server.server.waitingPullCount() > 0 }, orElse: { await server.stop() })
        await server.stop()
        let (data, response) = try await pull.value
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let page = try PullResponse(jsonData: data)
        #expect(page.rows.isEmpty && page.upToDate)
    }

    /// A request the server accepted before its task was cancelled is answered from the database:
    /// the PostgreSQL client stops after the HTTP server, not with it.
    @Test(.timeLimit(.minutes(3))) func aStoppingServerAnswersFromItsDatabaseWhatItAccepted() async throws {
        let gate = RequestGate()
        let server = try await RunningSyncServer.start("stopanswer") { router in
            router.add(middleware: HoldFirstPull(gate: gate))
        }
        var request = URLRequest(url: server.url.appending(path: "v1/changes").appending(queryItems: [
            URLQueryItem(name: "after", value: "0"), URLQueryItem(name: "limit", value: "10"),
        ]))
        request.setValue("Bearer token-a", forHTTPHeaderField: "Authorization")
        request.timeoutInterval = 60
        let pull = Task { [request] in try await URLSession.shared.data(for: request) }
        try await Self.polling(until: { await gate.isHolding }, orElse: {
            await gate.release()   // a request held now would keep the server from stopping
            await server.stop()
        })
        let stopping = Task { await server.stop() }
        // The server's task is cancelled while the pull waits before its route; the pull then
        // reads the database.
        try await Task.sleep(for: .milliseconds(300))
        await gate.release()
        let (data, response) = try await pull.value
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: data, as: UTF8.self))")
        #expect(try PullResponse(jsonData: data).upToDate)
        await stopping.value
    }

    /// Waits until `condition` holds, polling, so that the test's time limit (a cancellation) ends
    /// the wait; `giveUp` then stops what the test started outside its own task (its server).
    private static func polling(until condition: () async -> Bool, orElse giveUp: () async -> Void) async throws {
        do {
            while await !condition() { try await Task.sleep(for: .milliseconds(10)) }
        } catch {
            await giveUp()
            throw error
        }
    }
}

/// Holds one request until released, and says when it holds it.
private actor RequestGate {
    private var holding: CheckedContinuation<Void, Never>?
    private var held = false

    /// Holds the caller until ``release()``; only the first caller is held.
    func hold() async {
        guard !held else { return }
        held = true
        await withCheckedContinuation { holding = $0 }
    }

    /// Whether a caller is held (or was, and was released).
    var isHolding: Bool { held }

    func release() {
        holding?.resume()
        holding = nil
    }
}

/// Holds the first pull before its route, at the gate.
private struct HoldFirstPull<Context: RequestContext>: RouterMiddleware {
    let gate: RequestGate

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.path == SyncPath.changes { await gate.hold() }
        return try await next(request, context)
    }
}
