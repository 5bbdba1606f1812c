import Dispatch

/// An interface for performing storage-related tasks using an isolated model context.
public protocol ModelExecutor: Executor {
    /// The model context that the executor's jobs use.
    var modelContext: ModelContext { get }
}

/// An interface for performing serial storage-related tasks using an isolated model context.
public protocol SerialModelExecutor: ModelExecutor, SerialExecutor {}

/// An object that safely performs storage-related tasks using an isolated model context.
///
/// The executor runs the jobs of the actor it serves one at a time, in order, on its own dispatch
/// queue; its model context is used only by those jobs.
public final class DefaultSerialModelExecutor: SerialModelExecutor, @unchecked Sendable {
    // Sendable invariant: `modelContext` is not Sendable, and it is only ever used by jobs this
    // executor runs, which run one at a time on `queue`.

    /// The model context that the executor's jobs use.
    public let modelContext: ModelContext
    private let queue: DispatchQueue

    /// Creates an executor for a model context.
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
        self.queue = DispatchQueue(label: "OpenSwiftData.DefaultSerialModelExecutor")
    }

    /// Schedules a job to run on the executor's queue, after the jobs enqueued before it.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// Returns an unowned reference to the executor.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Stops the program unless the caller runs on the executor's queue.
    public func checkIsolated() {
        dispatchPrecondition(condition: .onQueue(queue))
    }
}
