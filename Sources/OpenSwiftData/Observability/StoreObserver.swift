import Dispatch
import Logging
import Metrics

/// What a container with ``ModelContainer/Observability`` reports through: its logger and the
/// metrics made once from its factory. A container without any has none (`nil` wherever an
/// observer is kept), so that reporting costs nothing there.
///
/// Stores opened by the container find its observer in ``opening`` while they open, and keep it
/// for what they report later (pool waits, PostgreSQL statements).
package final class StoreObserver: Sendable {
    /// The observer of the container whose stores are opening on this task or thread.
    @TaskLocal package static var opening: StoreObserver?

    private let logger: Logger?
    private let saves: Counter?
    private let saveFailures: Counter?
    private let saveDuration: Metrics.Timer?
    private let statementDuration: Metrics.Timer?
    private let poolWaitDuration: Metrics.Timer?
    private let metricsFactory: (any MetricsFactory)?
    private let fetchDurations = LockedValue<[String: Metrics.Timer]>([:])
    private let warnedOfSharedThreadUse = LockedValue(false)
    private let slowNanoseconds: UInt64

    /// An observer for `observability`, or `nil` when it reports nowhere.
    package static func make(_ observability: ModelContainer.Observability) -> StoreObserver? {
        guard observability.logger != nil || observability.metricsFactory != nil else { return nil }
        return StoreObserver(observability)
    }

    private init(_ observability: ModelContainer.Observability) {
        logger = observability.logger
        let factory = observability.metricsFactory
        metricsFactory = factory
        saves = factory.map { Counter(label: "osd_saves", factory: $0) }
        saveFailures = factory.map { Counter(label: "osd_save_failures", factory: $0) }
        saveDuration = factory.map { Metrics.Timer(label: "osd_save_duration", factory: $0) }
        statementDuration = factory.map { Metrics.Timer(label: "osd_statement_duration", factory: $0) }
        poolWaitDuration = factory.map { Metrics.Timer(label: "osd_pool_wait_duration", factory: $0) }
        let threshold = observability.slowOperationThreshold.components
        slowNanoseconds = UInt64(max(0, threshold.seconds)) * 1_000_000_000 + UInt64(max(0, threshold.attoseconds) / 1_000_000_000)
    }

    /// The current time, for the durations the observer reports.
    package static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    private static func milliseconds(since start: UInt64) -> (nanoseconds: UInt64, text: Logger.MetadataValue) {
        let nanoseconds = now() &- start
        let milliseconds = Double(nanoseconds) / 1_000_000
        return (nanoseconds, "\((milliseconds * 1000).rounded() / 1000)")
    }

    // MARK: Opening and migrating

    /// A store opened (`error` is `nil`) or failed to.
    package func opened(store: String, kind: String, since start: UInt64, error: (any Error)? = nil) {
        guard let logger else { return }
        let duration = Self.milliseconds(since: start)
        if let error {
            logger.error("store failed to open", metadata: ["store": "\(store)", "kind": "\(kind)", "duration_ms": duration.text, "error": "\(error)"])
        } else {
            logger.info("store opened", metadata: ["store": "\(store)", "kind": "\(kind)", "duration_ms": duration.text])
        }
    }

    /// A store migrated its tables to the models without a plan.
    package func migratedLightly(store: String, changes: [String], since start: UInt64) {
        logger?.info("lightweight migration", metadata: [
            "store": "\(store)", "changes": "\(changes.joined(separator: "; "))", "duration_ms": Self.milliseconds(since: start).text,
        ])
    }

    /// A migration plan's stage ran (`error` is `nil`) or failed.
    package func ranStage(from: String, to: String, store: String, since start: UInt64, error: (any Error)? = nil) {
        guard let logger else { return }
        var metadata: Logger.Metadata = ["store": "\(store)", "from": "\(from)", "to": "\(to)", "duration_ms": Self.milliseconds(since: start).text]
        if let error {
            metadata["error"] = "\(error)"
            logger.error("migration stage failed", metadata: metadata)
        } else {
            logger.info("migration stage", metadata: metadata)
        }
    }

    // MARK: Saving and fetching

    /// A context's save ended: written (`error` is `nil`) or failed.
    package func saved(since start: UInt64, models: Int, error: (any Error)?) {
        let duration = Self.milliseconds(since: start)
        saveDuration?.recordNanoseconds(Int64(clamping: duration.nanoseconds))
        if let error {
            saveFailures?.increment()
            logger?.error("save failed", metadata: ["models": "\(models)", "duration_ms": duration.text, "error": "\(error)"])
        } else {
            saves?.increment()
            if duration.nanoseconds >= slowNanoseconds {
                logger?.warning("slow save", metadata: ["models": "\(models)", "duration_ms": duration.text])
            }
        }
    }

    /// A fetch of an entity's models ended.
    package func fetched(_ entity: String, since start: UInt64) {
        let duration = Self.milliseconds(since: start)
        if let metricsFactory {
            let timer = fetchDurations.withValue { timers in
                if let timer = timers[entity] { return timer }
                let timer = Metrics.Timer(label: "osd_fetch_duration", dimensions: [("model", entity)], factory: metricsFactory)
                timers[entity] = timer
                return timer
            }
            timer.recordNanoseconds(Int64(clamping: duration.nanoseconds))
        }
        if duration.nanoseconds >= slowNanoseconds {
            logger?.warning("slow fetch", metadata: ["model": "\(entity)", "duration_ms": duration.text])
        }
    }

    // MARK: What stores report

    /// A statement sent to a database server ended.
    package func ranStatement(_ sql: String, since start: UInt64) {
        let duration = Self.milliseconds(since: start)
        statementDuration?.recordNanoseconds(Int64(clamping: duration.nanoseconds))
        if duration.nanoseconds >= slowNanoseconds {
            logger?.warning("slow statement", metadata: ["sql": "\(sql.prefix(500))", "duration_ms": duration.text])
        }
    }

    /// A read waited for a connection of a pool of at most `maximum`.
    package func waitedForConnection(since start: UInt64, maximum: Int) {
        let duration = Self.milliseconds(since: start)
        poolWaitDuration?.recordNanoseconds(Int64(clamping: duration.nanoseconds))
        logger?.debug("waited for a connection", metadata: ["pool_size": "\(maximum)", "duration_ms": duration.text])
    }

    /// Whether the container has a logger to warn through.
    package var reportsWarnings: Bool { logger != nil }

    /// A store was called from Swift's shared threads (see ``BlockingCallSite``): warns the first
    /// time only.
    package func warnOnceOfSharedThreadUse(store: String, _ message: () -> String) {
        guard let logger, warnedOfSharedThreadUse.withValue({ warned in defer { warned = true }; return !warned }) else { return }
        logger.warning("\(message())", metadata: ["store": "\(store)"])
    }
}
