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
/// On a container whose store serves a fixed number of calls at once (a PostgreSQL store: its
/// own connection and its readers), at most that many of the container's executors run jobs at
/// once; the others wait their turn without a thread, as their calls would wait for a connection.
/// Await another model actor's work rather than blocking a job until it is done (with a
/// semaphore, say): when every one of those threads or places blocks so, the work waited for
/// never runs.
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
    /// Whether the running job gave its place in the lane away (``stepAside()``); used only by
    /// the thread running the job.
    private var hasSteppedAside = false
    /// The threads that run the jobs.
    private let threads: ModelExecutorThreads
    /// Where the executor waits for a place among the container's executors, when its stores
    /// serve a fixed number of calls at once.
    let lane: ModelExecutorLane?

    /// Creates an executor for a model context.
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
        self.threads = .shared
        self.lane = modelContext.container.executorLane
    }

    /// Creates an executor whose jobs run on `threads` rather than the process's shared threads,
    /// waiting in `lane` rather than the container's.
    init(modelContext: ModelContext, threads: ModelExecutorThreads, lane: ModelExecutorLane?) {
        self.modelContext = modelContext
        self.threads = threads
        self.lane = lane
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
        let keptPlace = !hasSteppedAside
        hasSteppedAside = false
        lock.lock()
        let more = jobsStart < jobs.count
        isScheduled = more
        lock.unlock()
        // The job's place in the lane goes to the executor that waited longest for one; this
        // thread runs the first executor in line next.
        if keptPlace, let next = lane?.release() { threads.enqueue(next, byWorker: true) }
        if more { threads.schedule(self) }
    }

    /// Gives the running job's place in the lane to the executor that waited longest, when the
    /// job is about to wait for something other than a connection of its own: the rest of the job
    /// runs beyond the lane's limit. Called on the job's thread.
    func stepAside() {
        guard let lane, !hasSteppedAside else { return }
        hasSteppedAside = true
        if let next = lane.release() { threads.enqueue(next, byWorker: false) }
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
