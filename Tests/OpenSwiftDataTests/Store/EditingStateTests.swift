import Foundation
import Testing
import OpenSwiftData

/// A custom store tells contexts apart by the editing state each request carries: every context
/// its own, with its author, announced before its first request and ended when it is released.
@Suite struct EditingStateTests {
    @Test func eachContextsRequestsCarryItsOwnEditingState() throws {
        let log = EditingStateLog()
        let url = URL(fileURLWithPath: "/editing-state/\(UUID().uuidString)")
        let container = try ModelContainer(for: Note.self, configurations: LoggingConfiguration(url: url, log: log))
        var first: ModelContext? = ModelContext(container)
        first?.author = "importer"
        let second = ModelContext(container)
        let firstState = try #require(first?.editingState)
        #expect(firstState.author == "importer", "the editing state carries the context's author")
        #expect(firstState.id != second.editingState.id, "each context has its own")
        #expect(first?.editingState.id == firstState.id, "and keeps it")

        first?.insert(Note(text: "one"))
        try first?.save()
        _ = try second.fetch(FetchDescriptor<Note>())
        _ = try first?.fetch(FetchDescriptor<Note>())
        // The first state is the container's own, for loading faults no one context asks for.
        let own = try #require(log.events.first)
        #expect(own.hasPrefix("initialize") && !own.contains(firstState.id.uuidString) && !own.contains(second.editingState.id.uuidString))
        #expect(log.events.dropFirst() == [
            "initialize \(firstState.id)",
            "save \(firstState.id) importer",
            "initialize \(second.editingState.id)",
            "fetch \(second.editingState.id) -",
            "fetch \(firstState.id) importer",
        ])

        first = nil
        #expect(log.events.last == "invalidate \(firstState.id)", "a released context's state ends")
        #expect(log.events.filter { $0.hasPrefix("invalidate") }.count == 1)
    }

    @Test func settingTheEditingStateSetsTheAuthorAndTheIdentity() throws {
        let log = EditingStateLog()
        let url = URL(fileURLWithPath: "/editing-state/\(UUID().uuidString)")
        let container = try ModelContainer(for: Note.self, configurations: LoggingConfiguration(url: url, log: log))
        let context = ModelContext(container)
        let other = ModelContext(container)
        other.author = "sync"
        context.editingState = other.editingState
        #expect(context.author == "sync")
        #expect(context.editingState.id == other.editingState.id)
        context.insert(Note(text: "synced"))
        try context.save()
        #expect(log.events.dropFirst() == ["initialize \(other.editingState.id)", "save \(other.editingState.id) sync"])
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.isEmpty, "the logging store keeps no history: \(history)")
    }
}

/// What a ``LoggingStore`` was asked, in order.
final class EditingStateLog: @unchecked Sendable {
    // @unchecked Sendable: `recorded` is only touched while `lock` is held.
    private let lock = NSLock()
    private var recorded: [String] = []
    func append(_ event: String) { lock.withLock { recorded.append(event) } }
    var events: [String] { lock.withLock { recorded } }
}

/// A store that keeps snapshots in memory and logs the editing state of each request.
final class LoggingStore: DataStore {
    typealias Configuration = LoggingConfiguration
    typealias Snapshot = DefaultSnapshot
    let configuration: LoggingConfiguration
    let identifier: String
    let schema: Schema
    private var snapshots: [PersistentIdentifier: DefaultSnapshot] = [:]
    private var nextKey = 1

    init(_ configuration: LoggingConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
        self.identifier = configuration.url.path
        self.schema = configuration.schema ?? Schema([])
    }

    func initializeState(for editingState: EditingState) { configuration.log.append("initialize \(editingState.id)") }
    func invalidateState(for editingState: EditingState) { configuration.log.append("invalidate \(editingState.id)") }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        configuration.log.append("fetch \(request.editingState.id) \(request.editingState.author ?? "-")")
        if request.descriptor.predicate != nil { throw DataStoreError.preferInMemoryFilter }
        let name = String(describing: T.self)
        let fetched = snapshots.values.filter { $0.persistentIdentifier.entityName == name }
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: fetched)
    }

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        configuration.log.append("save \(request.editingState.id) \(request.editingState.author ?? "-")")
        var remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
        for snapshot in request.inserted {
            let permanent = try PersistentIdentifier.identifier(for: identifier, entityName: snapshot.persistentIdentifier.entityName, primaryKey: nextKey)
            nextKey += 1
            remapped[snapshot.persistentIdentifier] = permanent
            snapshots[permanent] = snapshot.copy(persistentIdentifier: permanent, remappedIdentifiers: [:])
        }
        for snapshot in request.updated { snapshots[snapshot.persistentIdentifier] = snapshot }
        for snapshot in request.deleted { snapshots[snapshot.persistentIdentifier] = nil }
        return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: remapped)
    }
}

/// The configuration of a ``LoggingStore``.
struct LoggingConfiguration: DataStoreConfiguration {
    typealias Store = LoggingStore
    var name = "Logging"
    var schema: Schema?
    var url: URL
    var log: EditingStateLog

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name && lhs.url == rhs.url }
    func hash(into hasher: inout Hasher) { hasher.combine(url) }
}
