import Foundation

/// An interface for performing storage-related tasks using an isolated model context.
public protocol ModelExecutor: Executor {
    /// The model context that the executor's jobs use.
    var modelContext: ModelContext { get }
}

/// An interface for performing serial storage-related tasks using an isolated model context.
public protocol SerialModelExecutor: ModelExecutor, SerialExecutor {}

/// An object that safely performs storage-related tasks using an isolated model context.
///
/// The executor runs the jobs of the actor it serves one at a time, in order, on the threads
/// OpenSwiftData keeps for model executors (at most 16, or four per processor core where there
/// are more than four), never on the threads Swift's tasks share: a job that waits for its store
/// leaves the process's other tasks running. Executors with jobs take turns on those threads.
/// Await another model actor's work rather than blocking a job until it is done (with a
/// semaphore, say): when every one of those threads blocks so, the work waited for never runs.
public final class DefaultSerialModelExecutor: SerialModelExecutor, @unchecked Sendable {
    // Sendable invariant: `modelContext` is not Sendable, and it is only ever used by jobs this
    // executor runs, which run one at a time (`isScheduled`: at most one thread takes its jobs).
    // `jobs` and `isScheduled` are only used while `lock` is held.

    /// The model context that the executor's jobs use.
    public let modelContext: ModelContext
    private let lock = NSLock()
    private var jobs: [UnownedJob] = []
    private var jobsStart = 0
    private var isScheduled = false
    /// The threads that run the jobs.
    private let threads: ModelExecutorThreads

    /// Creates an executor for a model context.
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
        self.threads = .shared
    }

    /// Creates an executor whose jobs run on `threads` rather than the process's shared threads.
    init(modelContext: ModelContext, threads: ModelExecutorThreads) {
        self.modelContext = modelContext
        self.threads = threads
    }

    /// Schedules a job to run after the jobs enqueued before it.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        lock.lock()
        jobs.append(job)
        let schedules = !isScheduled
        isScheduled = true
        lock.unlock()
        if schedules { threads.schedule(self) }
    }

    /// Runs the oldest job, then puts the executor back in line if more are waiting.
    func runNextJob() {
        lock.lock()
        let job = jobs[jobsStart]
        jobsStart += 1
        if jobsStart == jobs.count {
            jobs.removeAll(keepingCapacity: true)
            jobsStart = 0
        }
        lock.unlock()
        job.runSynchronously(on: asUnownedSerialExecutor())
        lock.lock()
        let more = jobsStart < jobs.count
        isScheduled = more
        lock.unlock()
        if more { threads.schedule(self) }
    }

    /// Returns an unowned reference to the executor.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Stops the program unless the caller runs one of the executor's jobs, as `SerialExecutor`
    /// requires (`MainActor.assumeIsolated`-style checks of code that is not isolated).
    public func checkIsolated() {
        if !ModelExecutorThreads.isRunning(self) {
            fatalError("OpenSwiftData: code isolated to a model actor ran outside its DefaultSerialModelExecutor")
        }
    }
}
