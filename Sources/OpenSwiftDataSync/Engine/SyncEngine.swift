import Foundation
import OpenSwiftData

/// Synchronizes a container's store with an OpenSwiftData sync server: pushes the store's local
/// changes, pulls everyone else's, and says where it stands.
///
/// ```swift
/// let engine = SyncEngine(container: container,
///                         configuration: SyncConfiguration(serverURL: serverURL, token: token))
/// try await engine.sync()      // push every pending change, pull until up to date
/// engine.start()               // or keep synchronizing as the store changes
/// ```
///
/// The store's history is the outbox: every save of every context and process on the store is
/// pending until the server acknowledges it, and the engine's own state lives in the store, written
/// in the same transactions as the models it applies. Stopping the process at any moment loses
/// nothing and applies nothing twice. Conflicting edits are decided per property by the latest
/// ``SyncClock``; a deletion wins over a concurrent edit.
public final class SyncEngine: Sendable {
    /// The container whose store the engine synchronizes.
    public let container: ModelContainer
    /// Where and as whom the engine synchronizes.
    public let configuration: SyncConfiguration
    /// Where the engine stands; `Observable`.
    public let status: SyncStatus

    let worker: SyncWorker
    private let continuous = LockedValue<Task<Void, Never>?>(nil)
    private let listeners = LockedValue<[UUID: AsyncStream<SyncStatus>.Continuation]>([:])

    /// An engine for a container of one store that keeps its history (the SQLite store), and a
    /// server.
    public init(container: ModelContainer, configuration: SyncConfiguration) {
        self.container = container
        self.configuration = configuration
        let status = SyncStatus()
        self.status = status
        let listeners = self.listeners
        self.worker = SyncWorker(container: container, configuration: configuration, status: status) {
            let snapshot = status.snapshot()
            for continuation in listeners.load().values { continuation.yield(snapshot) }
        }
    }

    deinit {
        continuous.load()?.cancel()
        for continuation in listeners.load().values { continuation.finish() }
    }

    /// Pushes every pending local change, then pulls until the store holds everything the server
    /// has.
    ///
    /// - Throws: A ``SyncError`` naming what failed; ``status`` reports it as well. Pending changes
    ///   stay pending, and what was pulled before the failure stays applied (each server
    ///   checkpoint is applied in one transaction).
    public func sync() async throws {
        try await worker.synchronize()
    }

    /// Counts the local changes waiting to be sent into ``status`` now, without reaching the server
    /// (``start()`` keeps the count current by itself).
    ///
    /// - Throws: A ``SyncError`` when the store cannot be read.
    public func refreshStatus() async throws {
        try await worker.refreshPendingChangeCount()
    }

    /// A copy of ``status`` after each change, from now on.
    public var statusUpdates: AsyncStream<SyncStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncStatus.self, bufferingPolicy: .bufferingNewest(64))
        let id = UUID()
        listeners.withValue { $0[id] = continuation }
        continuation.onTermination = { [listeners] _ in _ = listeners.withValue { $0.removeValue(forKey: id) } }
        continuation.yield(status.snapshot())
        return stream
    }

    /// The pushed changes that lost to another device's, most recent last (at most 1,000): for a
    /// view that tells the user what was overwritten. The store keeps the list: after a restart,
    /// it is there again once the engine has synchronized.
    public var resolvedConflicts: [SyncConflict] {
        get async { await worker.conflicts }
    }

    /// The pushed changes the server's rules refused (``SyncError/Kind/refused``), most recent
    /// last (at most 1,000), each model and reason once: for a view that tells the user what was
    /// undone and why. The store keeps the list, written with the push's acknowledgment: after a
    /// restart, it is there again once the engine has synchronized.
    public var refusedChanges: [SyncRefusal] {
        get async { await worker.refusals }
    }

    /// Synchronizes continuously until ``stop()``: pushes soon after each save (of any context or
    /// process on the store), pulls as soon as the server announces a change, and retries failures
    /// with a growing delay. Calling it again while running does nothing.
    public func start() {
        continuous.withValue { task in
            guard task == nil else { return }
            task = Task { [worker, configuration] in await worker.runContinuously(configuration: configuration) }
        }
    }

    /// Stops continuous synchronization, waiting for a synchronization under way to end.
    public func stop() async {
        let task = continuous.withValue { task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }
        task?.cancel()
        await task?.value
    }
}
