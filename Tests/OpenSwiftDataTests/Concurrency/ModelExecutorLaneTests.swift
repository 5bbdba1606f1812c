import Dispatch
import Foundation
import MetricsTestKit
@testable import OpenSwiftData
import Testing

/// A container whose store serves a fixed number of calls at once runs at most that many model
/// actor jobs at once; the others wait their turn without a thread, first come first served,
/// while other containers' actors run, and a job that steps aside lets the next one in.
@Suite struct ModelExecutorLaneTests {
    /// Actors on `threads` whose executors wait in `lane`.
    static func actors(_ count: Int, lane: ModelExecutorLane?, threads: ModelExecutorThreads) throws -> [OnExecutor] {
        let container = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: TemporaryStore().url))
        return (0..<count).map { _ in
            OnExecutor(DefaultSerialModelExecutor(modelContext: ModelContext(container), threads: threads, lane: lane))
        }
    }

    @Test(.timeLimit(.minutes(2))) func aLanesExecutorsRunAtMostItsLimitOfJobsAtOnce() async throws {
        let lane = ModelExecutorLane(limit: 2, observer: nil)
        let actors = try Self.actors(6, lane: lane, threads: ModelExecutorThreads(limit: 8))
        let running = RunningJobs()
        await withTaskGroup(of: Void.self) { group in
            for actor in actors {
                group.addTask {
                    for _ in 0..<5 {
                        await actor.run {
                            running.enter()
                            Thread.sleep(forTimeInterval: 0.002)   // a store call's wait
                            running.leave()
                        }
                    }
                }
            }
        }
        #expect(running.finished == 30, "every job ran")
        #expect(running.most <= 2, "\(running.most) jobs of a lane of two ran at once")
        #expect(lane.waitingExecutors == 0)
    }

    @Test(.timeLimit(.minutes(2))) func aJobWaitsInAFullLaneWhileAnotherContainersActorRuns() async throws {
        let threads = ModelExecutorThreads(limit: 8)
        let lane = ModelExecutorLane(limit: 1, observer: nil)
        let laned = try Self.actors(2, lane: lane, threads: threads)
        let other = try Self.actors(1, lane: nil, threads: threads)[0]
        let gate = DispatchSemaphore(value: 0)
        let done = JobCounter()
        Task.detached { await laned[0].run { gate.wait() }; done.add() }
        Task.detached { await laned[1].run {}; done.add() }
        let secondWaits = try await ModelExecutorThreadTests.eventually(seconds: 20) { lane.waitingExecutors == 1 }
        #expect(secondWaits, "the second actor waits for the lane's one place")

        await other.run {}   // another container's actor runs meanwhile
        #expect(done.value == 0, "neither actor of the full lane finished")

        gate.signal()
        #expect(try await ModelExecutorThreadTests.eventually { done.value == 2 }, "the waiting actor runs once the place is free")
        #expect(lane.waitingExecutors == 0)
    }

    @Test(.timeLimit(.minutes(2))) func aJobThatStepsAsideLetsTheNextOneRunMeanwhile() async throws {
        let lane = ModelExecutorLane(limit: 1, observer: nil)
        let actors = try Self.actors(3, lane: lane, threads: ModelExecutorThreads(limit: 8))
        let gate = DispatchSemaphore(value: 0)
        let done = JobCounter(), steppedAside = JobCounter()
        Task.detached {
            await actors[0].run {
                ModelExecutorLane.stepAsideForRunningJob()   // as a save does before it waits
                ModelExecutorLane.stepAsideForRunningJob()   // a second call gives nothing more away
                steppedAside.add()
                gate.wait()
            }
            done.add()
        }
        // The next actor takes the place the held job gave away, and the one after waits for it.
        #expect(try await ModelExecutorThreadTests.eventually(seconds: 20) { steppedAside.value == 1 })
        let gateForSecond = DispatchSemaphore(value: 0)
        Task.detached { await actors[1].run { gateForSecond.wait() }; done.add() }
        Task.detached { await actors[2].run {}; done.add() }
        let thirdWaits = try await ModelExecutorThreadTests.eventually(seconds: 20) { lane.waitingExecutors == 1 }
        #expect(thirdWaits, "the job that stepped aside no longer counts; the second took the one place")

        gateForSecond.signal()
        #expect(try await ModelExecutorThreadTests.eventually { done.value == 2 }, "the third runs while the first still waits")
        gate.signal()
        #expect(try await ModelExecutorThreadTests.eventually { done.value == 3 })
        // The place the first job gave away is not given back twice: one place, as before.
        let after = try Self.actors(2, lane: lane, threads: ModelExecutorThreads(limit: 8))
        let held = DispatchSemaphore(value: 0)
        Task.detached { await after[0].run { held.wait() }; done.add() }
        Task.detached { await after[1].run {}; done.add() }
        #expect(try await ModelExecutorThreadTests.eventually(seconds: 20) { lane.waitingExecutors == 1 }, "the lane still has one place")
        held.signal()
        #expect(try await ModelExecutorThreadTests.eventually { done.value == 5 })
    }

    @Test(.timeLimit(.minutes(2))) func aWaitInTheLaneIsReportedAsAWaitForAConnection() async throws {
        let metrics = TestMetrics()
        let observer = try #require(StoreObserver.make(.init(metricsFactory: metrics)))
        let lane = ModelExecutorLane(limit: 1, observer: observer)
        let actors = try Self.actors(2, lane: lane, threads: ModelExecutorThreads(limit: 8))
        let gate = DispatchSemaphore(value: 0)
        let done = JobCounter()
        Task.detached { await actors[0].run { gate.wait() }; done.add() }
        #expect(try await ModelExecutorThreadTests.eventually(seconds: 20) { lane.waitingExecutors == 0 && done.value == 0 })
        Task.detached { await actors[1].run {}; done.add() }
        #expect(try await ModelExecutorThreadTests.eventually(seconds: 20) { lane.waitingExecutors == 1 })
        gate.signal()
        #expect(try await ModelExecutorThreadTests.eventually { done.value == 2 })
        // That the one wait in the lane is reported, as the read pool's waits are; how long it
        // took is not checked (speed belongs in the benchmarks).
        #expect(try metrics.expectTimer("osd_pool_wait_duration").values.count == 1)
    }

    @Test func aContainerHasALaneOnlyWhenEachOfItsStoresServesAFixedNumberOfCalls() throws {
        #expect(ModelExecutorLane.forStores(serving: [3, 5], observer: nil)?.limit == 8)
        #expect(ModelExecutorLane.forStores(serving: [3, nil], observer: nil) == nil)
        #expect(ModelExecutorLane.forStores(serving: [], observer: nil) == nil)
        let sqlite = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: TemporaryStore().url))
        #expect(sqlite.executorLane == nil, "SQLite's calls take threads as they come")
    }
}

/// Counts the jobs running at once, and the most that ever did.
final class RunningJobs: @unchecked Sendable {
    // @unchecked Sendable: the counts are only used while `lock` is held.
    private let lock = NSLock()
    private var now = 0
    private var highest = 0
    private var ended = 0

    func enter() {
        lock.withLock {
            now += 1
            highest = max(highest, now)
        }
    }

    func leave() {
        lock.withLock {
            now -= 1
            ended += 1
        }
    }

    var most: Int { lock.withLock { highest } }
    var finished: Int { lock.withLock { ended } }
}
