import Foundation
import Logging
import Metrics
import MetricsTestKit
import Testing
@testable import OpenSwiftData
import OpenSwiftDataPostgres

/// A log handler that keeps every event, for tests to read.
final class CapturedLog: @unchecked Sendable {
    struct Event {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    private let lock = NSLock()
    private var stored: [Event] = []

    var events: [Event] { lock.withLock { stored } }

    /// The events with this message.
    func events(_ message: String) -> [Event] { events.filter { $0.message == message } }

    var logger: Logger {
        var logger = Logger(label: "tests") { _ in Handler(log: self) }
        logger.logLevel = .trace
        return logger
    }

    fileprivate func append(_ event: Event) { lock.withLock { stored.append(event) } }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            log.append(Event(level: event.level, message: "\(event.message)", metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
        }
    }
}

/// A container's logger and metrics (`ModelContainer.Observability`): the events of opening,
/// migrating, saving and fetching, on SQLite and PostgreSQL, and nothing at all by default.
@Suite(.serialized) struct ObservabilityTests {
    static var backends: [Backend] { Backend.allCases.filter { $0 != .dataStore } }

    @Test(arguments: backends)
    func opensSavesFetchesAndFailuresAreLoggedAndCounted(_ backend: Backend) throws {
        let log = CapturedLog()
        let metrics = TestMetrics()
        let store = TemporaryStore()
        let container = try ModelContainer(
            for: Schema([Note.self]), configurations: [backend.configuration(url: store.url)],
            observability: .init(logger: log.logger, metricsFactory: metrics, slowOperationThreshold: .zero))
        let opened = try #require(log.events("store opened").first)
        #expect(opened.level == .info)
        // The events and metrics carry durations; what they measure is not checked here (speed
        // belongs in the benchmarks), only that each operation reports one.
        #expect(opened.metadata["duration_ms"] != nil)

        let context = ModelContext(container)
        context.insert(Note(text: "a"))
        try context.save()
        _ = try context.fetch(FetchDescriptor<Note>())
        #expect(metrics.counterTotal(label: "osd_saves") == 1)
        #expect(try metrics.expectTimer("osd_save_duration").values.count == 1)
        #expect(try metrics.expectTimer("osd_fetch_duration", [("model", "Note")]).values.count == 1)
        // A threshold of zero makes every operation slow.
        #expect(log.events("slow save").first?.level == .warning)
        #expect(log.events("slow fetch").first?.metadata["model"] == "Note")
        if backend == .postgres {
            #expect(!(try metrics.expectTimer("osd_statement_duration").values.isEmpty))
            #expect(log.events("slow statement").first?.metadata["sql"] != nil)
        }

        // A save that fails: a name of text PostgreSQL cannot hold, or SQLite's refused write.
        context.insert(Note(text: "nul\u{0}"))
        if backend == .postgres {
            #expect(throws: SwiftDataError.self) { try context.save() }
        } else {
            try context.save()   // SQLite keeps U+0000; fail it with a read-only reopen instead
            let readOnly = try ModelContainer(
                for: Schema([Note.self]), configurations: [backend.configuration(url: store.url, allowsSave: false)],
                observability: .init(logger: log.logger, metricsFactory: metrics))
            let readOnlyContext = ModelContext(readOnly)
            readOnlyContext.insert(Note(text: "b"))
            #expect(throws: SwiftDataError.self) { try readOnlyContext.save() }
        }
        let failed = try #require(log.events("save failed").first)
        #expect(failed.level == .error)
        #expect(failed.metadata["error"].map { "\($0)".contains("SwiftDataError") } == true)
        #expect(metrics.counterTotal(label: "osd_save_failures") == 1)
    }

    @Test(arguments: backends)
    func migrationsAreLogged(_ backend: Backend) throws {
        let url = TemporaryStore().url
        do {
            let context = ModelContext(try ModelContainer(
                for: Schema(versionedSchema: TripsV1.self), configurations: [backend.configuration(url: url)]))
            context.insert(TripsV1.Trip(name: "Paris", destination: "France"))
            try context.save()
        }
        // A plan's stage (V1 → V2) and then a lightweight change without a plan (V2 → V3 models
        // recorded at V3's version: a new uniqueness constraint and property).
        let log = CapturedLog()
        _ = try ModelContainer(
            for: Schema(versionedSchema: TripsV2.self), migrationPlan: LightweightTripsPlan.self,
            configurations: [backend.configuration(url: url)], observability: .init(logger: log.logger))
        let stage = try #require(log.events("migration stage").first)
        #expect(stage.metadata["from"] == "1.0.0")
        #expect(stage.metadata["to"] == "2.0.0")
        _ = try ModelContainer(
            for: Schema(versionedSchema: TripsV3.self), configurations: [backend.configuration(url: url)],
            observability: .init(logger: log.logger))
        let lightweight = try #require(log.events("lightweight migration").last)
        #expect(lightweight.metadata["changes"].map { "\($0)".contains("Trip.summary is new") } == true, "\(lightweight.metadata)")
    }

    @Test func aReadThatWaitsForAConnectionIsReported() throws {
        let log = CapturedLog()
        let metrics = TestMetrics()
        let observer = try #require(StoreObserver.make(.init(logger: log.logger, metricsFactory: metrics)))
        let pool = ConnectionPool<Int>(maximum: 1, observer: observer) { 1 }
        let holding = DispatchSemaphore(value: 0), released = DispatchSemaphore(value: 0)
        Thread {
            _ = try? pool.withConnection { _ in
                holding.signal()
                Thread.sleep(forTimeInterval: 0.05)
            }
            released.signal()
        }.start()
        holding.wait()
        try pool.withConnection { _ in }   // waits for the other thread's connection
        released.wait()
        #expect(log.events("waited for a connection").first?.level == .debug)
        #expect(try metrics.expectTimer("osd_pool_wait_duration").values.count == 1)
    }

    @Test func aContainerWithoutObservabilityHasNoObserver() throws {
        let container = try TemporaryStore().container(Note.self)
        #expect(container.observer == nil)
        #expect(StoreObserver.make(.none) == nil)
    }
}

/// V1 → V2 as one lightweight stage.
enum LightweightTripsPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: TripsV1.self, toVersion: TripsV2.self)] }
}
