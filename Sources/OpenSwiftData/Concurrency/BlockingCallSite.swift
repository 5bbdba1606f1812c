import Dispatch
import Foundation

/// Where a store call that waits (for a server's answer, a lock or a connection) is running, so
/// that a store can tell when its waiting holds one of the threads every task of the process
/// shares.
///
/// Swift runs tasks on a small pool of threads (one per core). A synchronous store call made
/// from async code on that pool keeps its thread until the store answers; when every thread of
/// the pool waits so, no other task runs. A ``ModelActor``'s jobs run on its executor's own
/// threads instead, and so do the main thread and threads of the app's own.
package enum BlockingCallSite {
    /// Whether waits on this task or thread are expected and not reported: while a container
    /// opens (once, at start-up), and in a command-line tool, whose tasks have nothing else to run.
    @TaskLocal package static var isSilenced = false

    /// Whether the caller runs a task's code on Swift's shared pool of threads: inside a task,
    /// not on a model executor, not on the main thread, and without an executor of the app's
    /// own preferred for the task; not where waits are expected (``isSilenced``).
    package static var isSharedTaskThread: Bool {
        guard !isSilenced else { return false }
        let onSharedPool = withUnsafeCurrentTask { task -> Bool in
            guard let task else { return false }
            return task.unownedTaskExecutor == nil
        }
        guard onSharedPool else { return false }
        return !ModelExecutorThreads.isRunningAJob && !Thread.isMainThread
    }

    private static let warnedOnStandardError = LockedValue(false)

    /// Reports that `store` was called from Swift's shared pool of threads: once per container
    /// through `observer`'s logger when the container has one, otherwise once per process on
    /// standard error.
    package static func warn(store: String, observer: StoreObserver?) {
        if let observer, observer.reportsWarnings {
            observer.warnOnceOfSharedThreadUse(store: store) { message(store) }
        } else if warnedOnStandardError.withValue({ warned in defer { warned = true }; return !warned }) {
            FileHandle.standardError.write(Data((message(store) + "\n").utf8))
        }
    }

    private static func message(_ store: String) -> String {
        """
            OpenSwiftData: \(store) was used from async code running on Swift's shared threads (one per core). \
            Each call blocks its thread until the store answers, and while every shared thread waits so, \
            no other task of the process runs. Use the context from a @ModelActor, whose jobs run on threads \
            of their own, or from a thread of your own (see "Threads and connections" in docs/Postgres.md).
            """
    }
}
