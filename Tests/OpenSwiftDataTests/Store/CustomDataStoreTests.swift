import Foundation
import Testing
@testable import OpenSwiftData

/// What SwiftData documents of custom data stores, through a store written against the public API.
@Suite struct CustomDataStoreTests {
    struct Refused: Error, Equatable { let reason: String }

    @Test func anErrorTheStoreThrowsReachesTheCallerAndTheChangesStay() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Note.self, backend: .dataStore))
        let note = Note(text: "draft")
        context.insert(note)
        ArchiveDataStore.failNextSave(at: store.url, with: Refused(reason: "offline"))
        #expect(throws: Refused(reason: "offline")) { try context.save() }
        #expect(context.hasChanges)
        #expect(context.insertedModelsArray.count == 1)
        #expect(note.persistentModelID.isTemporary)
        try context.save()
        #expect(!note.persistentModelID.isTemporary)
        let reopened = ModelContext(try store.container(Note.self, backend: .dataStore))
        #expect(try reopened.fetch(FetchDescriptor<Note>()).map(\.text) == ["draft"])
        #expect(try reopened.fetch(FetchDescriptor<Note>()).first?.persistentModelID == note.persistentModelID)
    }

    @Test func aFailedUpdateOrDeleteKeepsTheContextsChangesForARetry() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Note.self, backend: .dataStore))
        let kept = Note(text: "kept")
        let gone = Note(text: "gone")
        context.insert(kept)
        context.insert(gone)
        try context.save()
        kept.text = "changed"
        context.delete(gone)
        ArchiveDataStore.failNextSave(at: store.url, with: Refused(reason: "disk full"))
        #expect(throws: Refused(reason: "disk full")) { try context.save() }
        #expect(try ArchiveDataStore.contents(at: store.url).count == 2, "nothing was written")
        try context.save()
        let reopened = ModelContext(try store.container(Note.self, backend: .dataStore))
        #expect(try reopened.fetch(FetchDescriptor<Note>()).map(\.text) == ["changed"])
    }

    @Test func identifiersFromAStoresKeysAreEqualByStoreEntityAndKey() throws {
        let uuid = UUID()
        let byUUID = try PersistentIdentifier.identifier(for: "S", entityName: "Trip", primaryKey: uuid)
        #expect(byUUID == (try PersistentIdentifier.identifier(for: "S", entityName: "Trip", primaryKey: uuid)))
        #expect(byUUID != (try PersistentIdentifier.identifier(for: "S", entityName: "Trip", primaryKey: uuid.uuidString)), "a String key is not a UUID key")
        #expect(byUUID != (try PersistentIdentifier.identifier(for: "T", entityName: "Trip", primaryKey: uuid)), "another store")
        #expect(byUUID != (try PersistentIdentifier.identifier(for: "S", entityName: "Note", primaryKey: uuid)), "another entity")
        let byString = try PersistentIdentifier.identifier(for: "S", entityName: "Trip", primaryKey: "paris")
        let byInt = try PersistentIdentifier.identifier(for: "S", entityName: "Trip", primaryKey: 42)
        for id in [byUUID, byString, byInt] {
            #expect(id.storeIdentifier == "S")
            #expect(id.entityName == "Trip")
            let data = try JSONEncoder().encode(id)
            #expect(try JSONDecoder().decode(PersistentIdentifier.self, from: data) == id)
        }
        #expect(String(decoding: try JSONEncoder().encode(byString), as: UTF8.self).contains("paris"), "the store's own key is what is encoded")
    }

    @Test func aStoresKeysAreKeptWhileAnIdentifierOfItLives() throws {
        let store = "keys-\(UUID())"
        var kept: PersistentIdentifier? = try PersistentIdentifier.identifier(for: store, entityName: "Trip", primaryKey: "rome")
        for number in 0..<100 { _ = try PersistentIdentifier.identifier(for: store, entityName: "Trip", primaryKey: number) }
        #expect(ExternalKeyTable.existingTable(for: store)?.count == 101, "an identifier keeps its store's table, with every key it gave a number")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let encoded = try encoder.encode(kept)
        #expect(try JSONDecoder().decode(PersistentIdentifier.self, from: encoded) == kept)
        kept = nil
        #expect(ExternalKeyTable.existingTable(for: store) == nil, "no identifier of the store is left, so neither are its keys")
        let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: encoded)
        #expect(decoded == (try PersistentIdentifier.identifier(for: store, entityName: "Trip", primaryKey: "rome")))
        #expect(try encoder.encode(decoded) == encoded, "the store's own key is encoded, not the number the table gave it")
    }

    @Test func identifiersMadeAndDroppedOnManyThreadsAtOnceStayEqualByKey() async throws {
        let store = "churn-\(UUID())"
        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var mismatches = 0
                    for round in 0..<2_000 {
                        // Tables come and go as the threads' identifiers do.
                        let first = try PersistentIdentifier.identifier(for: store, entityName: "Trip", primaryKey: round % 7)
                        let again = try JSONDecoder().decode(PersistentIdentifier.self, from: try JSONEncoder().encode(first))
                        let other = try PersistentIdentifier.identifier(for: store, entityName: "Trip", primaryKey: round % 7 + 1)
                        if first != again || first == other { mismatches += 1 }
                    }
                    return mismatches
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(mismatches == 0)
        #expect(ExternalKeyTable.existingTable(for: store) == nil)
    }

    @Test func aCustomStoresKeysGoWithItsContainersAndModels() throws {
        let store = TemporaryStore()
        let storeIdentifier = store.url.path
        var encoded: [String: Data] = [:]
        do {
            let context = ModelContext(try store.container(Note.self, backend: .dataStore))
            for number in 0..<50 { context.insert(Note(text: "note \(number)")) }
            try context.save()
            for note in try context.fetch(FetchDescriptor<Note>()) { encoded[note.text] = try JSONEncoder().encode(note.persistentModelID) }
            #expect(ExternalKeyTable.existingTable(for: storeIdentifier)?.count == 50)
        }
        #expect(ExternalKeyTable.existingTable(for: storeIdentifier) == nil, "the container, its contexts and models are gone, and so are the store's keys")
        // Reopened: the same keys, numbered anew, name the same models.
        let context = ModelContext(try store.container(Note.self, backend: .dataStore))
        let notes = try context.fetch(FetchDescriptor<Note>())
        #expect(notes.count == 50)
        for note in notes {
            let earlier = try JSONDecoder().decode(PersistentIdentifier.self, from: try #require(encoded[note.text]))
            #expect(earlier == note.persistentModelID)
            #expect((context.model(for: earlier) as? Note)?.text == note.text)
        }
    }

    @Test func aStoreThatKeepsTemporaryIdentifiersIsAClearError() throws {
        let store = TemporaryStore()
        let context = ModelContext(try ModelContainer(for: Schema([Note.self]), configurations: [ForgetfulConfiguration(url: store.url)]))
        context.insert(Note(text: "x"))
        let error = try #require(throws: SwiftDataError.self) { try context.save() }
        #expect("\(error)".contains("permanent identifier"))
    }

    @Test func aValueOfTheWrongTypeNamesTheModelAndProperty() throws {
        let store = TemporaryStore()
        let container = try store.container(Note.self, backend: .dataStore)
        let context = ModelContext(container)
        context.insert(Note(text: "fine"))
        try context.save()
        let id = try #require(try context.fetch(FetchDescriptor<Note>()).first?.persistentModelID)
        // Rewrite the archived snapshot by hand, as a corrupt file would hold it.
        let json = "{\"persistentIdentifier\": \(String(decoding: try JSONEncoder().encode(id), as: UTF8.self)), \"text\": {\"integer\": 7}}"
        let corrupt = try JSONDecoder().decode(DefaultSnapshot.self, from: Data(json.utf8))
        #expect(corrupt.persistentIdentifier == id)
        let archive = try ArchiveDataStore(ArchiveConfiguration(schema: Schema([Note.self]), url: store.url), migrationPlan: nil)
        _ = try archive.save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: [], updated: [corrupt], deleted: []))
        let error = try #require(throws: SwiftDataError.self) { try ModelContext(container).fetch(FetchDescriptor<Note>()) }
        #expect("\(error)".contains("Note.text"))
    }

    @Test func contextsOnSeveralThreadsShareACustomStore() async throws {
        let store = TemporaryStore()
        let container = try store.container(Note.self, backend: .dataStore)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    let context = ModelContext(container)
                    for number in 0..<25 {
                        context.insert(Note(text: "\(writer)-\(number)"))
                        if number % 5 == 4 { try context.save() }
                        _ = try context.fetchCount(FetchDescriptor<Note>())
                    }
                }
            }
            try await group.waitForAll()
        }
        let notes = try ModelContext(try store.container(Note.self, backend: .dataStore)).fetch(FetchDescriptor<Note>())
        #expect(notes.count == 100)
        #expect(Set(notes.map(\.persistentModelID)).count == 100)
    }

    @Test func aContainerRoutesModelsToSQLiteAndToACustomStore() throws {
        let sqlite = TemporaryStore()
        let archive = TemporaryStore()
        func container() throws -> ModelContainer {
            try ModelContainer(for: Schema([Note.self, Item.self]), configurations: [
                ModelConfiguration("local", schema: Schema([Item.self]), url: sqlite.url),
                ArchiveConfiguration(name: "remote", schema: Schema([Note.self]), url: archive.url),
            ])
        }
        let context = ModelContext(try container())
        context.insert(Note(text: "in the archive"))
        context.insert(makeItem(1))
        try context.save()
        #expect(try ArchiveDataStore.contents(at: archive.url).map(\.persistentIdentifier.entityName) == ["Note"])
        let reopened = ModelContext(try container())
        #expect(try reopened.fetch(FetchDescriptor<Note>()).map(\.text) == ["in the archive"])
        #expect(try reopened.fetchCount(FetchDescriptor<Item>()) == 1)
    }
}

/// A model as a custom store first archived it, and as the app later declares it.
enum ShelfVersions {
    enum First {
        @Model final class Shelf {
            var label: String
            init(label: String) { self.label = label }
        }
    }

    enum Later {
        @Model final class Shelf {
            var label: String
            var capacity: Int = 12
            var finish: String = "oak"
            var colour: String?
            init(label: String) { self.label = label }
        }
    }

    enum Stricter {
        @Model final class Shelf {
            var label: String
            var owner: String
            init(label: String, owner: String) {
                self.label = label
                self.owner = owner
            }
        }
    }
}

extension CustomDataStoreTests {
    /// Archives one shelf as the first version of the model declares it.
    func archiveFirstShelf(in store: TemporaryStore) throws {
        let context = ModelContext(try store.container(ShelfVersions.First.Shelf.self, backend: .dataStore))
        context.insert(ShelfVersions.First.Shelf(label: "hall"))
        try context.save()
    }

    /// A custom store migrates its own data; until it does, a property the model gained reads as
    /// its declared initial value (or `nil`), as the built-in stores' lightweight migration fills it.
    @Test func aPropertyTheModelGainedReadsAsItsInitialValue() throws {
        let store = TemporaryStore()
        try archiveFirstShelf(in: store)
        let context = ModelContext(try store.container(ShelfVersions.Later.Shelf.self, backend: .dataStore))
        let shelf = try #require(try context.fetch(FetchDescriptor<ShelfVersions.Later.Shelf>()).first)
        #expect(shelf.label == "hall")
        #expect(shelf.capacity == 12)
        #expect(shelf.finish == "oak")
        #expect(shelf.colour == nil)
        #expect(try context.fetchCount(FetchDescriptor<ShelfVersions.Later.Shelf>(predicate: #Predicate { $0.capacity == 12 })) == 1)

        shelf.capacity = 30
        try context.save()
        let reread = try ModelContext(try store.container(ShelfVersions.Later.Shelf.self, backend: .dataStore))
            .fetch(FetchDescriptor<ShelfVersions.Later.Shelf>())
        #expect(reread.map(\.capacity) == [30], "the saved value, not the initial one")
        #expect(try ArchiveDataStore.contents(at: store.url).first?.values["capacity"] != nil, "the store now holds the property")
    }

    /// A gained property with neither an initial value nor `nil` to read has no value: the fetch
    /// fails naming the model and property, and makes nothing up.
    @Test func aGainedPropertyWithoutAnInitialValueIsAnErrorNamingIt() throws {
        let store = TemporaryStore()
        try archiveFirstShelf(in: store)
        let context = ModelContext(try store.container(ShelfVersions.Stricter.Shelf.self, backend: .dataStore))
        let error = #expect(throws: SwiftDataError.self) { try context.fetch(FetchDescriptor<ShelfVersions.Stricter.Shelf>()) }
        #expect(error?.reason?.contains("Shelf.owner") == true, "\(String(describing: error))")
    }
}

/// A store that saves but never hands back permanent identifiers.
final class ForgetfulStore: DataStore {
    typealias Snapshot = DefaultSnapshot
    let configuration: ForgetfulConfiguration
    let identifier = "forgetful"
    let schema: Schema
    init(_ configuration: ForgetfulConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
        self.schema = configuration.schema ?? Schema([])
    }
    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: [])
    }
    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        DataStoreSaveChangesResult(for: identifier)
    }
}

struct ForgetfulConfiguration: DataStoreConfiguration {
    typealias Store = ForgetfulStore
    var name = "forgetful"
    var schema: Schema?
    var url: URL
}
