import Foundation

extension ModelContext {
    /// What one save changed: the identifiers of the inserted, updated and deleted models.
    public struct SavedChanges: Sendable, Hashable {
        /// The models the save inserted.
        public let insertedIdentifiers: [PersistentIdentifier]
        /// The saved models whose properties the save changed.
        public let updatedIdentifiers: [PersistentIdentifier]
        /// The models the save deleted.
        public let deletedIdentifiers: [PersistentIdentifier]
    }
}

/// The recent saves of a container's contexts, so that every context can learn what the others
/// changed, and the streams of ``ModelContainer/savedChanges()``.
final class SaveLog: @unchecked Sendable {
    // @unchecked Sendable: every stored property is only touched while `lock` is held. The lock
    // is not recursive, so no access can overlap another (a second one would wait for the lock
    // forever first): the properties skip the run-time exclusivity check, read on every save.

    /// What other contexts need of one save to merge it, and live results to follow it: the
    /// inserted, updated and deleted identifiers, or `nil` for a save too large to keep, after
    /// which contexts refresh every registered model and live results refetch.
    struct Entry {
        let generation: UInt64
        let source: ObjectIdentifier
        let inserted: [PersistentIdentifier]?
        let updated: [PersistentIdentifier]?
        let deleted: [PersistentIdentifier]?
    }

    /// How many saves are kept at least (up to twice as many); a context that falls further behind
    /// refreshes all its models.
    static let capacity = 512
    /// How many identifiers one entry keeps at most, so that the log's memory stays small.
    static let largestEntry = 10_000

    private let lock = NSLock()
    @exclusivity(unchecked) private var entries: [Entry] = []
    @exclusivity(unchecked) private var generation: UInt64 = 0
    @exclusivity(unchecked) private var subscribers: [UInt64: AsyncStream<ModelContext.SavedChanges>.Continuation] = [:]
    @exclusivity(unchecked) private var signalSubscribers: [UInt64: AsyncStream<Void>.Continuation] = [:]
    @exclusivity(unchecked) private var nextSubscriber: UInt64 = 0

    /// The generation of the latest save.
    var latestGeneration: UInt64 { lock.withLock { generation } }

    /// Records a committed save of the context `source` and hands it to the subscribers.
    func record(_ changes: ModelContext.SavedChanges, from source: ObjectIdentifier) {
        lock.withLock {
            generation += 1
            let small = changes.updatedIdentifiers.count + changes.deletedIdentifiers.count <= Self.largestEntry
            let insertsKept = changes.insertedIdentifiers.count <= Self.largestEntry
            entries.append(Entry(generation: generation, source: source,
                                 inserted: insertsKept ? changes.insertedIdentifiers : nil,
                                 updated: small ? changes.updatedIdentifiers : nil,
                                 deleted: small ? changes.deletedIdentifiers : nil))
            // Trimmed in chunks, so that a save moves the kept entries only once per `capacity` saves.
            if entries.count >= 2 * Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
            for continuation in subscribers.values { continuation.yield(changes) }
            for continuation in signalSubscribers.values { continuation.yield() }
        }
    }

    /// The saves after `generation` by contexts other than `source`, and the latest generation.
    /// `entries` is `nil` when some of those saves are no longer kept.
    func saves(after generation: UInt64, excluding source: ObjectIdentifier) -> (entries: [Entry]?, latest: UInt64) {
        lock.withLock {
            guard generation < self.generation else { return ([], self.generation) }
            guard let first = entries.first, first.generation <= generation + 1 else { return (nil, self.generation) }
            let start = Int(generation + 1 - first.generation)
            return (entries[start...].filter { $0.source != source }, self.generation)
        }
    }

    /// Whether a context other than `source` saved after `generation` (also when some of those
    /// saves are no longer kept), and the latest generation: ``saves(after:excluding:)`` for a
    /// context with no models to bring up to date, without copying the entries.
    func othersSaved(after generation: UInt64, excluding source: ObjectIdentifier) -> (saved: Bool, latest: UInt64) {
        lock.withLock {
            guard generation < self.generation else { return (false, self.generation) }
            guard let first = entries.first, first.generation <= generation + 1 else { return (true, self.generation) }
            let start = Int(generation + 1 - first.generation)
            return (entries[start...].contains { $0.source != source }, self.generation)
        }
    }

    /// Every save after `generation`, whichever context made it, and the latest generation.
    /// `entries` is `nil` when some of those saves are no longer kept.
    func saves(after generation: UInt64) -> (entries: ArraySlice<Entry>?, latest: UInt64) {
        lock.withLock {
            guard generation < self.generation else { return ([], self.generation) }
            guard let first = entries.first, first.generation <= generation + 1 else { return (nil, self.generation) }
            return (entries[Int(generation + 1 - first.generation)...], self.generation)
        }
    }

    /// A stream that yields once after each save from now on; saves made while the consumer is
    /// busy fold into one element, so that it never falls behind.
    func signals() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = lock.withLock {
            nextSubscriber += 1
            signalSubscribers[nextSubscriber] = continuation
            return nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.lock.withLock { _ = self.signalSubscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// The number of live ``signals()`` streams, for tests of observers that are released.
    var signalSubscriberCount: Int { lock.withLock { signalSubscribers.count } }

    /// A stream of the saves recorded from now on.
    func stream() -> AsyncStream<ModelContext.SavedChanges> {
        let (stream, continuation) = AsyncStream.makeStream(of: ModelContext.SavedChanges.self)
        let id = lock.withLock {
            nextSubscriber += 1
            subscribers[nextSubscriber] = continuation
            return nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.lock.withLock { _ = self.subscribers.removeValue(forKey: id) }
        }
        return stream
    }
}
