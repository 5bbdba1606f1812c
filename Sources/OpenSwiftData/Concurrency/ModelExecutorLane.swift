import Foundation

/// The line the model executors of one container wait in for a thread when the container's
/// stores serve a fixed number of calls at once (``ConnectionBoundStore``): at most ``limit`` of
/// its executors run jobs or wait in ``ModelExecutorThreads``' line, and the others wait here,
/// first come first served, without a thread.
///
/// A job beyond the store's connections would only wait for one, on a thread of its own: a server
/// whose requests outnumber its connections would keep a thread blocked per waiting request, each
/// woken in turn when a connection comes back. Waiting here instead, a job starts on the thread
/// that ran the job before it, as soon as that job ends, with no thread put to sleep and woken.
/// The wait is reported as a wait for a connection (``StoreObserver/waitedForConnection(since:maximum:)``).
///
/// Jobs of an actor on the container that wait for another such actor's job (with a semaphore,
/// say) could wait for ever once every place is taken: await the other actor instead.
package final class ModelExecutorLane: @unchecked Sendable {
    // @unchecked Sendable: `admitted` and `waiting` are only used while `lock` is held.

    /// The most executors of the container that run jobs or wait for a thread at once.
    let limit: Int
    private let observer: StoreObserver?
    private let lock = NSLock()
    /// Executors let through to the threads' line, whose job has not ended yet.
    private var admitted = 0
    /// Executors waiting for a place, with the time each began to wait (when it is reported).
    private var waiting = FirstInFirstOut<(executor: DefaultSerialModelExecutor, since: UInt64)>()

    /// A lane of `limit` places, whose waits are reported to `observer`.
    init(limit: Int, observer: StoreObserver?) {
        self.limit = max(1, limit)
        self.observer = observer
    }

    /// The lane of a container whose stores serve `connections` calls at once each, or `nil` when
    /// one of them (a custom store, SQLite) does not say: its executors then take threads as
    /// their jobs arrive.
    static func forStores(serving connections: [Int?], observer: StoreObserver?) -> ModelExecutorLane? {
        guard !connections.isEmpty else { return nil }
        var total = 0
        for count in connections {
            guard let count else { return nil }
            total += count
        }
        return ModelExecutorLane(limit: total, observer: observer)
    }

    /// Lets an executor that has jobs through to the threads' line when a place is free, and
    /// returns `true`; otherwise keeps it waiting for the next place (``release()``) and returns
    /// `false`.
    func admit(_ executor: DefaultSerialModelExecutor) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if admitted < limit {
            admitted += 1
            return true
        }
        waiting.append((executor, observer == nil ? 0 : StoreObserver.now()))
        return false
    }

    /// An admitted executor's job ended: returns the executor that waited longest, which takes
    /// its place, or `nil` when none waits and the place is free.
    func release() -> DefaultSerialModelExecutor? {
        lock.lock()
        guard let next = waiting.removeFirst() else {
            admitted -= 1
            lock.unlock()
            return nil
        }
        lock.unlock()
        observer?.waitedForConnection(since: next.since, maximum: limit)
        return next.executor
    }

    /// Gives the place of the model actor job running on this thread, if any, to the executor
    /// that waited longest for one: a store calls it before its call waits for something other
    /// than a connection of the call's own (a save that waits to go with others on the store's
    /// connection), so that a job which would use another connection runs meanwhile.
    package static func stepAsideForRunningJob() {
        ModelExecutorThreads.runningExecutor?.stepAside()
    }

    /// How many executors wait for a place.
    var waitingExecutors: Int {
        lock.lock()
        defer { lock.unlock() }
        return waiting.count
    }
}
