import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The threads that run the jobs of every ``DefaultSerialModelExecutor`` of the process: at most
/// ``limit`` of them, started as jobs arrive and kept for the next ones.
///
/// A model actor's calls to a store wait on the calling thread (for PostgreSQL's answer, a lock or
/// a connection), so they must not run on the few threads Swift's tasks share. Giving each
/// executor a thread whenever it has work (as a dispatch queue does) would give a server one
/// thread per waiting request, up to hundreds. Here executors with work wait in line, first come
/// first served, for one of ``limit`` threads; each thread runs one job of an executor, then
/// puts the executor back in line if it has more, so that one busy actor does not hold a thread
/// while others wait. Jobs of one executor never run at the same time.
///
/// The limit is ample for the work the threads do: the store calls a server can run at once are
/// bounded by its connections (a PostgreSQL container has one plus `maximumReadConnections`),
/// and jobs beyond them would only wait for a connection, each on a thread of its own. On such a
/// container they wait in its ``ModelExecutorLane`` instead, holding no thread, and start on the
/// thread of the job whose place they take.
final class ModelExecutorThreads: @unchecked Sendable {
    // @unchecked Sendable: `ready`, `started` and `idle` are only used while `condition` is held.

    /// The threads of the process's model executors.
    static let shared = ModelExecutorThreads(limit: max(16, 4 * ProcessInfo.processInfo.activeProcessorCount))

    /// The most threads the pool runs.
    let limit: Int
    private let condition = NSCondition()
    private var ready = FirstInFirstOut<DefaultSerialModelExecutor>()
    private var started = 0
    private var idle = 0

    init(limit: Int) {
        self.limit = limit
    }

    /// Puts an executor that has jobs in line for a thread, or in its container's lane when the
    /// lane is full (``ModelExecutorLane``).
    func schedule(_ executor: DefaultSerialModelExecutor) {
        if let lane = executor.lane, !lane.admit(executor) { return }
        enqueue(executor, byWorker: false)
    }

    /// Puts an admitted executor in line for a thread. A worker that enqueues an executor as its
    /// own job ends (`byWorker`) takes the first in line itself next, so it leaves one of them to
    /// itself.
    func enqueue(_ executor: DefaultSerialModelExecutor, byWorker: Bool) {
        condition.lock()
        ready.append(executor)
        let unclaimed = ready.count - (byWorker ? 1 : 0)
        // An idle thread counts until it wakes, and a signalled one may not have woken yet: an
        // executor in line beyond the idle threads gets a thread of its own (within the limit),
        // or it could wait behind a job that blocks while an idle thread was promised to another.
        if unclaimed > idle, started < limit {
            started += 1
            let thread = Thread { [self] in work() }
            thread.name = "OpenSwiftData.ModelExecutor"
            thread.start()
        }
        if unclaimed > 0, idle > 0 { condition.signal() }
        condition.unlock()
    }

    /// The threads waiting for an executor to have jobs.
    var idleThreads: Int {
        condition.lock()
        defer { condition.unlock() }
        return idle
    }

    /// A thread's life: the next executor in line, one of its jobs, and again.
    private func work() {
        while true {
            condition.lock()
            var next = ready.removeFirst()
            while next == nil {
                idle += 1
                condition.wait()
                idle -= 1
                next = ready.removeFirst()
            }
            condition.unlock()
            guard let executor = next else { continue }
            Self.running = Unmanaged.passUnretained(executor).toOpaque()
            executor.runNextJob()
            Self.running = nil
        }
    }

    // MARK: The executor running on the current thread

    private static let runningKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The executor whose job the current thread is running, as an opaque pointer.
    private static var running: UnsafeMutableRawPointer? {
        get { pthread_getspecific(runningKey) }
        set { pthread_setspecific(runningKey, newValue) }
    }

    /// Whether the current thread is running a job of `executor`.
    static func isRunning(_ executor: DefaultSerialModelExecutor) -> Bool {
        running == Unmanaged.passUnretained(executor).toOpaque()
    }

    /// Whether the current thread is running a job of any model executor.
    static var isRunningAJob: Bool { running != nil }

    /// The executor whose job the current thread is running, if any.
    static var runningExecutor: DefaultSerialModelExecutor? {
        running.map { Unmanaged<DefaultSerialModelExecutor>.fromOpaque($0).takeUnretainedValue() }
    }
}
