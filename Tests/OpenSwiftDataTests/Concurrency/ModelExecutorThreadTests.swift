import Dispatch
import Foundation
@testable import OpenSwiftData
import Testing

/// A model actor that can be held inside one of its jobs, as a store call waiting for a lock is.
@ModelActor
actor HeldActor {
    private var order: [Int] = []

    /// Blocks the actor's thread until `gate` opens, then notes `number`.
    func hold(until gate: DispatchSemaphore, noting number: Int) {
        gate.wait()
        order.append(number)
    }

    func note(_ number: Int) { order.append(number) }

    private var total = 0

    /// A read, some work, then a write: two jobs running at once would lose additions.
    func add(_ amount: Int) {
        let read = total
        var spin = 0
        for step in 0..<50 { spin &+= step }
        total = read + amount + (spin == -1 ? 1 : 0)
    }

    func sum() -> Int { total }

    func notes() -> [Int] { order }

    /// Whether the actor's context runs on the actor's executor (`assumeIsolated` checks it).
    func isolatedContextCount() throws -> Int {
        try modelContext.fetchCount(FetchDescriptor<Item>())
    }
}

/// Model actors' jobs run on threads of their own, a bounded number of them: jobs that wait take
/// turns rather than a thread each, the process's other tasks keep running, and one actor's jobs
/// stay in order.
@Suite struct ModelExecutorThreadTests {
    /// The threads of this process (Linux's `/proc`), or `nil` elsewhere.
    static func threadCount() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("Threads:") }
        return line.flatMap { Int($0.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) }
    }

    /// Whether `condition` holds within `seconds` (two minutes unless given), looking every 10 ms
    /// (without holding a thread).
    static func eventually(seconds: Int = 120, _ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<(seconds * 100) {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    // Async, so that the test waits without holding one of the shared threads it checks.
    @Test(.timeLimit(.minutes(5))) func blockedJobsWaitForAThreadRatherThanTakingOneEach() async throws {
        let store = TemporaryStore()
        let container = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: store.url))
        let before = Self.threadCount()
        let gate = DispatchSemaphore(value: 0)
        let actors = (0..<200).map { _ in HeldActor(modelContainer: container) }
        let done = JobCounter()
        for (number, actor) in actors.enumerated() {
            Task.detached {
                await actor.hold(until: gate, noting: number)
                done.add()
            }
        }
        // Some jobs are running (and blocked) now; the rest wait for a thread.
        try await Task.sleep(for: .milliseconds(500))
        if let before, let during = Self.threadCount() {
            #expect(during - before <= 64, "200 blocked actors hold \(during - before) new threads")
        }
        let unrelated = await Task.detached { 6 * 7 }.value
        #expect(unrelated == 42, "a task of no actor runs while the actors' threads wait")
        #expect(done.value == 0)

        for _ in actors { gate.signal() }
        #expect(try await Self.eventually { done.value == actors.count }, "every held job ends once let go")
    }

    /// Jobs that arrive together while a thread idles each get a thread (up to the limit), even
    /// though the idle thread counts as free until it wakes: none waits behind another that blocks.
    @Test(.timeLimit(.minutes(2))) func jobsArrivingTogetherEachGetAThreadWhileAnotherBlocks() async throws {
        let store = TemporaryStore()
        let container = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: store.url))
        let threads = ModelExecutorThreads(limit: 8)
        let actors = (0..<8).map { _ in OnExecutor(DefaultSerialModelExecutor(modelContext: ModelContext(container), threads: threads, lane: nil)) }
        // A job first, so that the pool has one thread, which then idles.
        await actors[0].run {}
        #expect(try await Self.eventually { threads.idleThreads == 1 })

        // Each job blocks until all eight run at once, as requests waiting for a lock do.
        let barrier = Barrier(parties: actors.count)
        for actor in actors {
            Task.detached { await actor.run { barrier.arriveAndWait(seconds: 20) } }
        }
        let together = try await Self.eventually(seconds: 20) { barrier.arrivals == actors.count }
        #expect(together, "\(barrier.arrivals) of \(actors.count) jobs ran at once")
        barrier.open()
    }

    @Test func oneActorsJobsRunOneAtATime() async throws {
        let store = TemporaryStore()
        let container = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: store.url))
        let actor = HeldActor(modelContainer: container)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<1_000 { await actor.add(1) } }
            }
        }
        #expect(await actor.sum() == 8_000)
        for number in 0..<100 { await actor.note(number) }
        #expect(await actor.notes() == Array(0..<100))
        #expect(try await actor.isolatedContextCount() == 0)
    }
}

/// A counter shared between tasks and the test.
final class JobCounter: @unchecked Sendable {
    // @unchecked Sendable: `count` is only used while `lock` is held.
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// An actor whose jobs run on a given model executor.
actor OnExecutor {
    let executor: DefaultSerialModelExecutor

    init(_ executor: DefaultSerialModelExecutor) {
        self.executor = executor
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    func run(_ body: @Sendable () -> Void) { body() }
}

/// A point that blocks each of a number of threads until all of them reached it (or it is opened).
final class Barrier: @unchecked Sendable {
    // @unchecked Sendable: `arrived` and `isOpen` are only used while `condition` is held.
    private let condition = NSCondition()
    private let parties: Int
    private var arrived = 0
    private var isOpen = false

    init(parties: Int) {
        self.parties = parties
    }

    /// The threads that reached the barrier.
    var arrivals: Int { condition.withLock { arrived } }

    /// Blocks until every party arrived, the barrier is opened, or `seconds` passed.
    func arriveAndWait(seconds: Double) {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: seconds)
        while arrived < parties, !isOpen, condition.wait(until: deadline) {}
    }

    /// Lets every waiting thread go.
    func open() {
        condition.withLock {
            isOpen = true
            condition.broadcast()
        }
    }
}
