import Foundation
import Hummingbird
import OpenSwiftData
import OpenSwiftDataSync
import OpenSwiftDataSyncServer
import Testing

/// A download from the start that the server trims deletions during: a model an earlier page
/// brought, deleted and its deletion trimmed before a later page would have brought it, is not
/// kept. The download starts over when the user's trim point grows while it runs.
@Suite(.enabled(if: SyncPostgres.isAvailable, SyncPostgres.skipMessage), .stopsSyncServers, .serialized)
struct SyncSnapshotTrimTests {
    @Test func aModelDeletedAndTrimmedDuringADownloadIsNotKept() async throws {
        let interleaving = OneShotAction()
        let server = try await RunningSyncServer.start("syncsnaptrim") { router in
            router.add(middleware: BeforeDownloadPage(action: interleaving))
        }
        // The second device pulls a row per page: its download takes a request per model.
        let (a, b) = try await SyncDevice.pairHoldingATrip(on: server, pullPageSize: 1)
        let making = a.context()
        for (code, name) in [("T2", "Braga"), ("T3", "Coimbra"), ("T4", "Evora")] { making.insert(Trip(code: code, name: name)) }
        try making.save()
        try await a.engine.sync()
        try await b.engine.sync()
        #expect(try b.trips().map(\.code) == ["T1", "T2", "T3", "T4"])

        // T4 is deleted and its deletion trimmed: the second device downloads everything again.
        let deleting = a.context()
        deleting.delete(try #require(try a.trip("T4", in: deleting)))
        try deleting.save()
        try await a.engine.sync()
        #expect(try await server.server.trimHistory(olderThan: .zero).deletions == 1)

        // T1 is deleted on the first device; the deletion reaches the server, and is trimmed,
        // after the download's first page (which holds T1) and before its second.
        let later = a.context()
        later.delete(try #require(try a.trip("T1", in: later)))
        try later.save()
        let (engine, syncServer) = (a.engine, server.server)
        await interleaving.set {
            try await engine.sync()
            let trimmed = try await syncServer.trimHistory(olderThan: .zero)
            #expect(trimmed.deletions == 1, "T1's deletion")
        }
        try await b.engine.sync()
        #expect(await interleaving.ran, "the deletion came during the download")

        #expect(try b.trips().map(\.code) == ["T2", "T3"], "T1 was deleted during the download")
        #expect(try a.trips().map(\.code) == ["T2", "T3"])
        #expect(b.engine.status.isUpToDate && b.engine.status.pendingChangeCount == 0)
        // Reopened and synchronized again, the device agrees.
        try b.restart()
        try await b.engine.sync()
        #expect(try b.trips().map(\.code) == ["T2", "T3"])
    }
}

/// An action to run once, set while the server runs.
private actor OneShotAction {
    private var action: (@Sendable () async throws -> Void)?
    private(set) var ran = false

    func set(_ action: @escaping @Sendable () async throws -> Void) {
        self.action = action
    }

    /// The action, once: later calls get `nil`.
    func take() -> (@Sendable () async throws -> Void)? {
        defer { action = nil }
        if action != nil { ran = true }
        return action
    }
}

/// Runs an action before a page of a download from the start (a pull without a client) after its
/// first, once.
private struct BeforeDownloadPage<Context: RequestContext>: RouterMiddleware {
    let action: OneShotAction

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let query = request.uri.queryParameters
        if request.uri.path == SyncPath.changes, query["client"] == "", let after = query["after"].flatMap({ Int64(String($0)) }), after > 0,
           let run = await action.take() {
            try await run()
        }
        return try await next(request, context)
    }
}
