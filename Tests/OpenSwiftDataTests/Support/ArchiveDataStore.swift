import Foundation
import Testing
import OpenSwiftData
import OpenSwiftDataPostgres

/// A custom `DataStore` written as an app writes one, against the public API only: it keeps each
/// model's snapshot encoded as JSON in an archive named by a URL, which lives as long as the test
/// process (so a second container on the same URL is a "reopen"), each under its identifier's
/// encoded form, as a file would hold it (no live identifier of the store outlives its containers
/// and models here, as none does with a store on disk). It assigns `Int` primary keys,
/// declines predicates and sorts as Apple's sample store does, can be told to fail a save, and
/// logs the editing state of each request when its configuration has a log.
final class ArchiveDataStore: DataStore {
    typealias Configuration = ArchiveConfiguration
    typealias Snapshot = DefaultSnapshot

    let configuration: ArchiveConfiguration
    let identifier: String
    let schema: Schema

    /// The archives, by URL: each model's encoded snapshot, by encoded identifier, in insertion order.
    nonisolated(unsafe) private static var archives: [URL: Archive] = [:]
    private static let lock = NSLock()

    struct Archive {
        var nextKey = 1
        var order: [Data] = []
        var snapshots: [Data: Data] = [:]
    }

    /// Errors the next save to an archive throws before writing anything, by URL.
    nonisolated(unsafe) private static var failures: [URL: any Error] = [:]

    /// Makes the next save to the archive at `url` throw `error`.
    static func failNextSave(at url: URL, with error: any Error) {
        lock.lock()
        defer { lock.unlock() }
        failures[url] = error
    }

    /// Reads of the archive at `url` that are still to fail, and with what.
    nonisolated(unsafe) private static var readFailures: [URL: (count: Int, error: any Error)] = [:]

    /// Makes the next `count` fetches from the archive at `url` throw `error`.
    static func failNextReads(at url: URL, count: Int = 1, with error: any Error) {
        lock.lock()
        defer { lock.unlock() }
        readFailures[url] = (count, error)
    }

    /// The snapshots of an archive, decoded, in insertion order.
    static func contents(at url: URL) throws -> [DefaultSnapshot] {
        try withArchive(url) { archive in try archive.order.compactMap { try archive.snapshots[$0].map { try decoder.decode(DefaultSnapshot.self, from: $0) } } }
    }

    init(_ configuration: ArchiveConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
        self.identifier = configuration.url.path
        self.schema = try #require(configuration.schema)
    }

    private static func withArchive<R>(_ url: URL, _ body: (inout Archive) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&archives[url, default: Archive()])
    }

    private static let encoder = JSONEncoder()
    private static let decoder = JSONDecoder()
    private static let keyEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    /// The form an identifier is archived under: equal identifiers give equal data.
    private static func key(of identifier: PersistentIdentifier) throws -> Data {
        try keyEncoder.encode(identifier)
    }

    func initializeState(for editingState: EditingState) { configuration.log?.append("initialize \(editingState.id)") }

    func invalidateState(for editingState: EditingState) { configuration.log?.append("invalidate \(editingState.id)") }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        configuration.log?.append("fetch \(request.editingState.id) \(request.editingState.author ?? "-")")
        if request.descriptor.predicate != nil { throw DataStoreError.preferInMemoryFilter }
        if !request.descriptor.sortBy.isEmpty { throw DataStoreError.preferInMemorySort }
        let all = try Self.withArchive(configuration.url) { archive in
            if let failure = Self.readFailures[configuration.url], failure.count > 0 {
                Self.readFailures[configuration.url] = (failure.count - 1, failure.error)
                throw failure.error
            }
            return try archive.order.compactMap { key in try archive.snapshots[key].map { try Self.decoder.decode(DefaultSnapshot.self, from: $0) } }
        }
        let name = String(describing: T.self)
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: all.filter { $0.persistentIdentifier.entityName == name })
    }

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        configuration.log?.append("save \(request.editingState.id) \(request.editingState.author ?? "-")")
        return try Self.withArchive(configuration.url) { archive in
            if let error = Self.failures.removeValue(forKey: configuration.url) { throw error }
            var copy = archive
            var remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
            for snapshot in request.inserted {
                remapped[snapshot.persistentIdentifier] = try PersistentIdentifier.identifier(
                    for: identifier, entityName: snapshot.persistentIdentifier.entityName, primaryKey: copy.nextKey)
                copy.nextKey += 1
            }
            for snapshot in request.inserted {
                let permanent = snapshot.copy(persistentIdentifier: remapped[snapshot.persistentIdentifier]!, remappedIdentifiers: remapped)
                let key = try Self.key(of: permanent.persistentIdentifier)
                copy.order.append(key)
                copy.snapshots[key] = try Self.encoder.encode(permanent)
            }
            for snapshot in request.updated {
                let key = try Self.key(of: snapshot.persistentIdentifier)
                guard copy.snapshots[key] != nil else { throw DataStoreError.unsupportedFeature }
                copy.snapshots[key] = try Self.encoder.encode(snapshot.copy(persistentIdentifier: snapshot.persistentIdentifier, remappedIdentifiers: remapped))
            }
            for snapshot in request.deleted {
                let key = try Self.key(of: snapshot.persistentIdentifier)
                copy.snapshots[key] = nil
                copy.order.removeAll { $0 == key }
            }
            archive = copy
            return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: remapped)
        }
    }
}

/// The configuration of an ``ArchiveDataStore``: the archive's URL.
struct ArchiveConfiguration: DataStoreConfiguration {
    typealias Store = ArchiveDataStore
    var name: String
    var schema: Schema?
    var url: URL
    /// Where the store logs the editing state of each request, if anywhere.
    var log: EditingStateLog?

    init(name: String = "Archive", schema: Schema? = nil, url: URL, log: EditingStateLog? = nil) {
        self.name = name
        self.schema = schema
        self.url = url
        self.log = log
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name && lhs.schema == rhs.schema && lhs.url == rhs.url }
    func hash(into hasher: inout Hasher) { hasher.combine(url) }
}

/// What an ``ArchiveDataStore`` was asked, in order.
final class EditingStateLog: @unchecked Sendable {
    // @unchecked Sendable: `recorded` is only touched while `lock` is held.
    private let lock = NSLock()
    private var recorded: [String] = []
    func append(_ event: String) { lock.withLock { recorded.append(event) } }
    var events: [String] { lock.withLock { recorded } }
}

/// The stores the behavioural suites run against.
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    /// The built-in SQLite store.
    case sqlite
    /// A custom `DataStore` (``ArchiveDataStore``) behind the DataStore adapter.
    case dataStore
    /// The PostgreSQL store, on the server `OSD_POSTGRES_URL` names.
    case postgres

    /// Every backend, PostgreSQL only when a server is available (`Scripts/with-postgres.sh`);
    /// `PostgresAvailabilityTests` says when it is not.
    ///
    /// None in the pass whose default store is PostgreSQL (`OSD_TEST_BACKEND=postgres`,
    /// `Scripts/test-all.sh --default-store-on-postgres`): the suites parameterized over the
    /// backends ran on every one of them in `swift test`, and that pass runs the rest again on
    /// PostgreSQL.
    static var allCases: [Backend] {
        if TemporaryStore.defaultBackend == .postgres { return [] }
        return PostgresTestServer.url == nil ? [.sqlite, .dataStore] : [.sqlite, .dataStore, .postgres]
    }

    var testDescription: String { rawValue }

    /// A configuration of this backend at a URL. On PostgreSQL, the URL names the configuration's
    /// own namespace, so that each test's store is its own. `allowsDestructiveMigration`
    /// overrides the store's default, where it has one.
    func configuration(url: URL, allowsSave: Bool = true, allowsDestructiveMigration: Bool? = nil) -> any DataStoreConfiguration {
        switch self {
        case .sqlite:
            var configuration = ModelConfiguration(url: url, allowsSave: allowsSave)
            if let allowsDestructiveMigration { configuration.allowsDestructiveMigration = allowsDestructiveMigration }
            return configuration
        case .dataStore:
            return ArchiveConfiguration(url: url)
        case .postgres:
            var configuration = PostgresTestServer.configuration(for: url, allowsSave: allowsSave)
            if let allowsDestructiveMigration { configuration.allowsDestructiveMigration = allowsDestructiveMigration }
            return configuration
        }
    }
}
