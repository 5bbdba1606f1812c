import Dispatch
import Foundation
@testable import OpenSwiftData
import OpenSwiftDataPostgres
import PostgresNIO
import Testing

/// A server's requests waiting for the store do not stall the process's other tasks: a
/// `@ModelActor`'s calls wait on its executor's own threads, never on the few threads Swift's
/// tasks share; and a context used directly in async code, which would hold one of those threads
/// while it waits, is reported.
@Suite(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
struct PostgresSharedThreadTests {
    @ModelActor actor PosterReader {
        func labels() throws -> [String] {
            try modelContext.fetch(FetchDescriptor<Poster>(sortBy: [SortDescriptor(\.label)])).map(\.label)
        }

        func add(_ label: String) throws {
            modelContext.insert(Poster(label: label))
            try modelContext.save()
        }
    }

    /// Whether `condition` holds within a minute, looking every 10 ms (without holding a thread).
    static func eventually(_ condition: () throws -> Bool) async throws -> Bool {
        for _ in 0..<6_000 {
            if try condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// A container on a fresh namespace with `readConnections` readers, holding one poster, "a".
    static func containerWithOnePoster(readConnections: Int) throws -> (ModelContainer, PostgresStoreConfiguration) {
        var configuration = try PostgresServer.freshConfiguration("shared")
        configuration.maximumReadConnections = readConnections
        let container = try ModelContainer(for: Poster.self, configurations: configuration)
        let setup = ModelContext(container)
        setup.insert(Poster(label: "a"))
        try setup.save()
        return (container, configuration)
    }

    /// Runs `body` while a connection of the test holds the posters' table locked in `mode`, in a
    /// transaction `body` commits (`COMMIT` on the connection it is given) to let the waiters go;
    /// closes the connection afterwards, whatever `body` throws.
    static func whilePostersAreLocked(
        _ configuration: PostgresStoreConfiguration, mode: String, _ body: (PostgresConnection) async throws -> Void
    ) async throws {
        let blocker = try PostgresServer.connect()
        do {
            try PostgresServer.sql("BEGIN", on: blocker)
            try PostgresServer.sql("LOCK TABLE \(configuration.name).\"Poster\" IN \(mode) MODE", on: blocker)
            try await body(blocker)
        } catch {
            try? await blocker.close().get()
            throw error
        }
        try await blocker.close().get()
    }

    // Async, so that the test waits without holding one of the shared threads it checks.
    @Test(.timeLimit(.minutes(2))) func anUnrelatedTaskRunsWhileEveryConnectionWaitsForALock() async throws {
        let (container, configuration) = try Self.containerWithOnePoster(readConnections: 2)

        try await Self.whilePostersAreLocked(configuration, mode: "ACCESS EXCLUSIVE") { blocker in
            // More requests than connections and than cores, each with its own model actor.
            let requests = 8
            let finished = LockedCount()
            for _ in 0..<requests {
                Task.detached {
                    if (try? await PosterReader(modelContainer: container).labels()) == ["a"] { finished.add() }
                }
            }
            let allWaiting = try await Self.eventually { try PostgresReadConnectionTests.connections(of: configuration, waitingForALock: true) == 3 }
            #expect(allWaiting, "the container's connection and both readers wait for the lock")
            #expect(container.executorLane?.limit == 3, "the container runs as many actors' jobs at once as it has connections")
            let restWaitTheirTurn = try await Self.eventually { container.executorLane?.waitingExecutors == requests - 3 }
            #expect(restWaitTheirTurn, "the other requests wait their turn without a thread")

            let unrelated = await Task.detached { 6 * 7 }.value
            #expect(unrelated == 42, "a task that touches no store runs while every connection waits")
            #expect(finished.value == 0, "no request got past the lock")

            try PostgresServer.sql("COMMIT", on: blocker)
            #expect(try await Self.eventually { finished.value == requests }, "every request reads once the lock is released")
        }
    }

    // Async, so that the test waits without holding one of the shared threads it checks.
    @Test(.timeLimit(.minutes(2))) func aReadRunsWhileMoreSavesThanConnectionsWaitForTheContainersConnection() async throws {
        let (container, configuration) = try Self.containerWithOnePoster(readConnections: 1)
        // Writes wait for the test's lock; reads do not.
        try await Self.whilePostersAreLocked(configuration, mode: "EXCLUSIVE") { blocker in
            let saves = 4   // twice the container's two connections
            let saved = LockedCount()
            for number in 0..<saves {
                Task.detached { if (try? await PosterReader(modelContainer: container).add("s\(number)")) != nil { saved.add() } }
            }
            let waiting = try await Self.eventually { try PostgresReadConnectionTests.connections(of: configuration, waitingForALock: true) == 1 }
            #expect(waiting, "a save waits for the lock on the container's connection")

            // Each waiting save gave its place to the next actor: a read runs on the reader.
            let read = LockedValue<[String]?>(nil)
            Task.detached { if let labels = try? await PosterReader(modelContainer: container).labels() { read.withValue { $0 = labels } } }
            let readWhileSavesWait = try await Self.eventually { read.withValue { $0 } != nil }
            #expect(readWhileSavesWait, "a read ran while more saves than connections waited")
            #expect(read.withValue { $0 } == ["a"])
            #expect(saved.value == 0, "no save got past the lock")

            try PostgresServer.sql("COMMIT", on: blocker)
            #expect(try await Self.eventually { saved.value == saves }, "every save ends once the lock is released")
            #expect(try await PosterReader(modelContainer: container).labels() == ["a", "s0", "s1", "s2", "s3"])
        }
    }

    /// The store's connections read the server's answers on event loops of their own: an
    /// application that holds every loop of SwiftNIO's shared group (as a busy server's HTTP
    /// connections can) does not stop the store from answering.
    @Test(.timeLimit(.minutes(2))) func aReadIsAnsweredWhileEveryLoopOfSwiftNIOsSharedGroupIsHeld() throws {
        let (container, _) = try Self.containerWithOnePoster(readConnections: 1)

        let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
        let held = DispatchGroup(), release = DispatchSemaphore(value: 0)
        for loop in loops {
            held.enter()
            loop.execute {
                held.leave()
                release.wait()
            }
        }
        held.wait()
        let answered = DispatchSemaphore(value: 0)
        let labels = LockedLabels()
        // A context of its own on a thread of its own, reading on the container's connection and
        // on a reader it opens now, while every shared loop is held.
        for _ in 0..<2 {
            Thread {
                labels.set(try? ModelContext(container).fetch(FetchDescriptor<Poster>()).map(\.label))
                answered.signal()
            }.start()
        }
        let deadline = DispatchTime.now() + 60
        let bothAnswered = answered.wait(timeout: deadline) == .success && answered.wait(timeout: deadline) == .success
        for _ in loops { release.signal() }
        #expect(bothAnswered, "the reads were answered while SwiftNIO's shared loops were held")
        #expect(labels.all == [["a"], ["a"]])
    }

    @Test func aContextUsedDirectlyInAsyncCodeIsReportedOnce() async throws {
        let warnings = CapturedWarnings()
        let configuration = try PostgresServer.freshConfiguration("shared")
        // Opened in async code: opening is not reported, it happens once.
        let container = try ModelContainer(
            for: Schema([Poster.self]), configurations: [configuration], observability: .init(logger: warnings.logger))
        #expect(warnings.all.isEmpty)

        _ = try await PosterReader(modelContainer: container).labels()
        #expect(warnings.all.isEmpty, "a model actor's calls wait on its executor's threads")

        try await Task.detached {
            let context = ModelContext(container)
            context.insert(Poster(label: "direct"))
            try context.save()
            _ = try context.fetch(FetchDescriptor<Poster>())
        }.value
        let reported = warnings.all
        #expect(reported.count == 1, "reported once per container")
        #expect(reported.first?.contains("@ModelActor") == true)
        #expect(reported.first?.contains(configuration.name) == true, "the warning names the store")
    }

    @Test func aContextOnAThreadOfItsOwnIsNotReported() throws {
        let warnings = CapturedWarnings()
        let container = try ModelContainer(
            for: Schema([Poster.self]), configurations: [try PostgresServer.freshConfiguration("shared")],
            observability: .init(logger: warnings.logger))
        let work = Background { () -> Int in
            let context = ModelContext(container)
            context.insert(Poster(label: "thread"))
            try context.save()
            return try context.fetchCount(FetchDescriptor<Poster>())
        }
        guard case .some(.success(let count)) = work.wait(seconds: 60) else {
            Issue.record("the thread's save and fetch did not succeed")
            return
        }
        #expect(count == 1)
        #expect(warnings.all.isEmpty)
    }
}

/// A counter shared between tasks and the test's thread.
final class LockedCount: @unchecked Sendable {
    // @unchecked Sendable: `count` is only used while `lock` is held.
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// The labels each of several threads read, `nil` for a read that failed.
final class LockedLabels: @unchecked Sendable {
    // @unchecked Sendable: `labels` is only used while `lock` is held.
    private let lock = NSLock()
    private var labels: [[String]?] = []
    func set(_ read: [String]?) { lock.withLock { labels.append(read) } }
    var all: [[String]?] { lock.withLock { labels } }
}
