import Foundation
import OpenSwiftData
import Testing

/// Stops, when each test ends, every sync server the test started (``RunningSyncServer/start``),
/// and waits until each has stopped: a failed test's servers included, and before the next test
/// of a serialized suite begins. A test can still stop a server itself, earlier.
///
/// Attach it to every suite or test that starts servers: ``RunningSyncServer/start`` refuses to
/// start one outside it (a server nobody stops would serve until the test process ends).
struct StopsSyncServers: SuiteTrait, TestTrait, TestScoping {
    /// Applied to each test of the suite it is attached to.
    var isRecursive: Bool { true }

    /// The scope of each test function, all of its cases in one; none for suites.
    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite || testCase != nil ? nil : self
    }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let started = StartedSyncServers()
        do {
            try await StartedSyncServers.$current.withValue(started) { try await function() }
        } catch {
            await started.stopAll()
            throw error
        }
        await started.stopAll()
    }
}

extension Trait where Self == StopsSyncServers {
    /// Stops the sync servers each test starts when the test ends (``StopsSyncServers``).
    static var stopsSyncServers: Self { Self() }
}

/// The sync servers a test started.
final class StartedSyncServers: Sendable {
    /// The servers of the test running in this task, if it runs under ``StopsSyncServers``.
    @TaskLocal static var current: StartedSyncServers?

    private let servers = LockedValue<[RunningSyncServer]>([])

    func add(_ server: RunningSyncServer) {
        servers.withValue { $0.append(server) }
    }

    /// Stops every server, the last started first.
    func stopAll() async {
        for server in servers.load().reversed() { await server.stop() }
    }
}
