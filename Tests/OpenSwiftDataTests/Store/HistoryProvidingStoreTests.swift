import Foundation
import Testing
import OpenSwiftData

/// A custom store that keeps a journal of its saves and provides it as history, as a
/// `HistoryProviding` store does: `fetchHistory` and `deleteHistory` of its transaction type reach it.
final class JournalStore: DataStore, HistoryProviding {
    typealias Configuration = JournalConfiguration
    typealias Snapshot = DefaultSnapshot
    typealias HistoryType = JournalTransaction

    static var historyType: JournalTransaction.Type { JournalTransaction.self }
    let configuration: JournalConfiguration
    let identifier: String
    let schema: Schema
    private let archive: ArchiveDataStore
    private var journal: [JournalTransaction] = []

    init(_ configuration: JournalConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
        self.identifier = "journal:" + configuration.url.path
        self.schema = try #require(configuration.schema)
        self.archive = try ArchiveDataStore(ArchiveConfiguration(schema: configuration.schema, url: configuration.url), migrationPlan: migrationPlan)
    }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        try archive.fetch(request)
    }

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        let result = try archive.save(request)
        let number = (journal.last?.transactionIdentifier ?? 0) + 1
        journal.append(JournalTransaction(
            transactionIdentifier: number, author: request.editingState.author, storeIdentifier: identifier,
            insertedCount: request.inserted.count, token: JournalToken(tokenValue: number)))
        return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: result.remappedIdentifiers)
    }

    func fetchHistory(_ descriptor: HistoryDescriptor<JournalTransaction>) throws -> [JournalTransaction] {
        try journal.filter { try descriptor.predicate?.evaluate($0) ?? true }
    }

    func deleteHistory(_ descriptor: HistoryDescriptor<JournalTransaction>) throws {
        journal = try journal.filter { try !(descriptor.predicate?.evaluate($0) ?? true) }
    }
}

struct JournalConfiguration: DataStoreConfiguration {
    typealias Store = JournalStore
    var name = "journal"
    var schema: Schema?
    var url: URL
}

struct JournalToken: HistoryToken {
    let tokenValue: Int
    var id: Int { tokenValue }
    static func < (lhs: JournalToken, rhs: JournalToken) -> Bool { lhs.tokenValue < rhs.tokenValue }
}

struct JournalTransaction: HistoryTransaction {
    let transactionIdentifier: Int
    let author: String?
    let storeIdentifier: String
    let insertedCount: Int
    let token: JournalToken
    var changes: [HistoryChange] { [] }
    var timestamp: Date { Date(timeIntervalSinceReferenceDate: 0) }
    var id: Int { transactionIdentifier }
}

@Suite struct HistoryProvidingStoreTests {
    @Test func aHistoryProvidingStoreAnswersForItsTransactionType() throws {
        let store = TemporaryStore()
        let container = try ModelContainer(for: Schema([Note.self]), configurations: [JournalConfiguration(url: store.url)])
        let context = ModelContext(container)
        context.author = "editor"
        context.insert(Note(text: "one"))
        context.insert(Note(text: "two"))
        try context.save()
        context.author = "sync"
        context.insert(Note(text: "three"))
        try context.save()

        let all = try context.fetchHistory(HistoryDescriptor<JournalTransaction>())
        #expect(all.map(\.author) == ["editor", "sync"])
        #expect(all.map(\.insertedCount) == [2, 1])
        let bySync = try context.fetchHistory(HistoryDescriptor<JournalTransaction>(predicate: #Predicate { $0.author == "sync" }))
        #expect(bySync.map(\.transactionIdentifier) == [2])

        try context.deleteHistory(HistoryDescriptor<JournalTransaction>(predicate: #Predicate { $0.transactionIdentifier == 1 }))
        #expect(try context.fetchHistory(HistoryDescriptor<JournalTransaction>()).map(\.transactionIdentifier) == [2])
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).isEmpty, "a custom store records no default history")
    }
}
