import Logging
import Metrics

extension ModelContainer {
    /// Where a container reports what it does: events to a swift-log `Logger`, and counters and
    /// timers to a swift-metrics factory.
    ///
    /// Both are off by default, and a container without them does no extra work. Pass one to
    /// ``ModelContainer/init(for:migrationPlan:configurations:observability:)``:
    ///
    /// ```swift
    /// var logger = Logger(label: "trips.store")
    /// logger.logLevel = .info
    /// let container = try ModelContainer(
    ///     for: Schema([Trip.self]), configurations: [PostgresStoreConfiguration(url: database)],
    ///     observability: .init(logger: logger, metricsFactory: MetricsSystem.factory))
    /// ```
    ///
    /// Events (their metadata names the store, the model and the duration in milliseconds):
    /// - `info`: each store opened, each lightweight migration and each migration plan stage run;
    /// - `error`: a store that fails to open, a migration stage that fails, a save that fails
    ///   (with the error);
    /// - `warning`: a fetch, a save or a PostgreSQL statement slower than
    ///   ``slowOperationThreshold``;
    /// - `debug`: a read that waited for a free connection of its store's pool.
    ///
    /// Metrics: the counters `osd_saves` and `osd_save_failures`, and the timers
    /// `osd_save_duration`, `osd_fetch_duration` (dimension `model`), `osd_statement_duration`
    /// (PostgreSQL statements) and `osd_pool_wait_duration`.
    public struct Observability: Sendable {
        /// The logger that receives the container's events, or `nil` for none.
        public var logger: Logger?
        /// The factory that makes the container's counters and timers, or `nil` for none. Pass
        /// `MetricsSystem.factory` to use the one your app bootstrapped.
        public var metricsFactory: (any MetricsFactory)?
        /// How long a fetch, a save or a PostgreSQL statement runs before it is logged as slow.
        public var slowOperationThreshold: Duration

        /// Creates a description of where a container reports.
        ///
        /// - Parameters:
        ///   - logger: The logger that receives the container's events, or `nil` for none.
        ///   - metricsFactory: The factory that makes its counters and timers, or `nil` for none.
        ///   - slowOperationThreshold: How long an operation runs before it is logged as slow.
        public init(logger: Logger? = nil, metricsFactory: (any MetricsFactory)? = nil, slowOperationThreshold: Duration = .milliseconds(250)) {
            self.logger = logger
            self.metricsFactory = metricsFactory
            self.slowOperationThreshold = slowOperationThreshold
        }

        /// No logger and no metrics: the default.
        public static var none: Observability { Observability() }
    }
}
