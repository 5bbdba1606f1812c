import Foundation
import Testing
@testable import OpenSwiftData

/// A container of several configurations: each model in its configuration's store.
@Suite struct SeveralStoresTests {
    let notesStore = TemporaryStore(name: "Notes.store")
    let itemsStore = TemporaryStore(name: "Items.store")

    func container() throws -> ModelContainer {
        try ModelContainer(for: Schema([Note.self, Item.self]), configurations: [
            ModelConfiguration("notes", schema: Schema([Note.self]), url: notesStore.url),
            ModelConfiguration("items", url: itemsStore.url),
        ])
    }

    static func item(_ name: String) -> Item {
        Item(name: name, note: nil, count: 1, optionalCount: nil, score: 0, optionalScore: nil, flag: false,
             date: Date(timeIntervalSinceReferenceDate: 0), price: 0, big: 0, code: UUID(), mood: .calm)
    }

    /// A store's identifier and its configuration's name map to each other, from the models'
    /// identifiers and the history's tokens too, and stay the same when the files are reopened.
    @Test func storeIdentifiersAndConfigurationNamesMapToEachOther() throws {
        let container = try container()
        let context = ModelContext(container)
        let note = Note(text: "hello")
        context.insert(note)
        context.insert(Self.item("widget"))
        try context.save()

        let notes = try #require(container.storeIdentifier(forConfigurationNamed: "notes"))
        let items = try #require(container.storeIdentifier(forConfigurationNamed: "items"))
        #expect(notes != items)
        #expect(notes != "notes", "an identifier is the store's, not the configuration's name")
        #expect(container.storeIdentifier(forConfigurationNamed: "missing") == nil)
        #expect(container.configurationName(forStoreIdentifier: notes) == "notes")
        #expect(container.configurationName(forStoreIdentifier: items) == "items")
        #expect(container.configurationName(forStoreIdentifier: "missing") == nil)
        #expect(note.persistentModelID.storeIdentifier == notes)

        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(Set(history.map { container.configurationName(forStoreIdentifier: $0.token.storeIdentifier) }) == ["notes", "items"])
        #expect(history.allSatisfy { $0.token.storeIdentifier == $0.storeIdentifier })

        let reopened = try self.container()
        #expect(reopened.storeIdentifier(forConfigurationNamed: "notes") == notes)
        #expect(reopened.storeIdentifier(forConfigurationNamed: "items") == items)
    }

    /// Each model is saved in its configuration's file, and nowhere else.
    @Test func eachModelLandsInItsConfigurationsStore() throws {
        let container = try container()
        let context = ModelContext(container)
        let note = Note(text: "hello")
        let item = Self.item("widget")
        context.insert(note)
        context.insert(item)
        try context.save()
        #expect(note.persistentModelID.storeIdentifier != item.persistentModelID.storeIdentifier)

        let notesOnly = ModelContext(try notesStore.container(Note.self))
        #expect(try notesOnly.fetch(FetchDescriptor<Note>()).map(\.text) == ["hello"])
        let itemsOnly = ModelContext(try itemsStore.container(Item.self))
        #expect(try itemsOnly.fetch(FetchDescriptor<Item>()).map(\.name) == ["widget"])

        let fresh = ModelContext(try self.container())
        #expect((fresh.model(for: note.persistentModelID) as? Note)?.text == "hello")
        #expect((fresh.model(for: item.persistentModelID) as? Item)?.name == "widget")
        #expect(try fresh.fetchCount(FetchDescriptor<Item>(predicate: #Predicate { $0.name == "widget" })) == 1)
        let fetchedItem = try #require(try fresh.fetch(FetchDescriptor<Item>()).first)
        fetchedItem.count = 5
        try fresh.delete(model: Note.self)
        try fresh.save()
        #expect(try ModelContext(try notesStore.container(Note.self)).fetchCount(FetchDescriptor<Note>()) == 0)
        #expect(try ModelContext(try itemsStore.container(Item.self)).fetch(FetchDescriptor<Item>()).map(\.count) == [5])

        ModelContext(container).insert(Note(text: "again"))
        try container.erase()
        #expect(try ModelContext(try self.container()).fetchCount(FetchDescriptor<Item>()) == 0)
        #expect(try ModelContext(try self.container()).fetchCount(FetchDescriptor<Note>()) == 0)
    }

    /// A model in two configurations, or in none, and a relationship between two stores, are
    /// errors at container creation.
    @Test func ambiguousOrSplitSchemasAreRefused() throws {
        #expect(throws: SwiftDataError.duplicateConfiguration) {
            try ModelContainer(for: Schema([Note.self, Item.self]), configurations: [
                ModelConfiguration("a", schema: Schema([Note.self]), url: notesStore.url),
                ModelConfiguration("b", schema: Schema([Note.self, Item.self]), url: itemsStore.url),
            ])
        }
        #expect(throws: SwiftDataError.configurationSchemaNotFoundInContainerSchema) {
            try ModelContainer(for: Schema([Note.self, Item.self, Attachment.self]), configurations: [
                ModelConfiguration("a", schema: Schema([Note.self]), url: notesStore.url),
                ModelConfiguration("b", schema: Schema([Attachment.self]), isStoredInMemoryOnly: true),
            ])
        }
        #expect(throws: SwiftDataError.duplicateConfiguration) {
            try ModelContainer(for: Schema([Note.self, Item.self]), configurations: [
                ModelConfiguration("a", url: notesStore.url),
                ModelConfiguration("b", url: itemsStore.url),
            ])
        }
        #expect(throws: SwiftDataError.configurationSchemaNotFoundInContainerSchema) {
            try ModelContainer(for: Schema([Memo.self]), configurations: [
                ModelConfiguration("attachments", schema: Schema([Attachment.self]), url: notesStore.url),
                ModelConfiguration("memos", url: itemsStore.url),
            ])
        }
        #expect(!FileManager.default.fileExists(atPath: itemsStore.url.path), "nothing was created")
    }

    /// When the second store's write fails, the first store keeps what it wrote, the context
    /// records that part as saved and keeps the rest pending, and a retry writes only the rest.
    @Test func aFailedStoreLeavesTheOthersSavedAndItsChangesPending() throws {
        let schema = Schema([Note.self, Item.self])
        let notes = ModelConfiguration("notes", schema: Schema([Note.self]), url: notesStore.url)
        let items = ModelConfiguration("items", schema: Schema([Item.self]), url: itemsStore.url)
        let failing = DecliningStore(try SQLiteStore(url: itemsStore.url, schema: Schema([Item.self]), allowsSave: true))
        let container = try ModelContainer(for: schema, stores: [
            (try SQLiteStore(url: notesStore.url, schema: Schema([Note.self]), allowsSave: true), notes),
            (failing, items),
        ])
        let context = ModelContext(container)
        let note = Note(text: "first")
        let item = Self.item("second")
        context.insert(note)
        context.insert(item)
        failing.failingSaves.store(SwiftDataError(.storeFailure, reason: "injected"))
        #expect(throws: SwiftDataError.storeFailure) { try context.save() }
        #expect(!note.persistentModelID.id.description.hasPrefix("t"), "the note was written: its identifier is permanent")
        #expect(context.insertedModelsArray.count == 1 && context.insertedModelsArray.first as? Item === item)
        #expect(try ModelContext(try notesStore.container(Note.self)).fetchCount(FetchDescriptor<Note>()) == 1)

        failing.failingSaves.store(nil)
        try context.save()
        #expect(!context.hasChanges)
        #expect(try ModelContext(try notesStore.container(Note.self)).fetchCount(FetchDescriptor<Note>()) == 1, "not written twice")
        #expect(try ModelContext(try itemsStore.container(Item.self)).fetch(FetchDescriptor<Item>()).map(\.name) == ["second"])
    }

    /// A configuration with `allowsSave: false` refuses saves of its models before anything is written.
    @Test func aReadOnlyConfigurationRefusesItsModelsSaves() throws {
        do {
            let context = ModelContext(try notesStore.container(Note.self))
            context.insert(Note(text: "kept"))
            try context.save()
        }
        let container = try ModelContainer(for: Schema([Note.self, Item.self]), configurations: [
            ModelConfiguration("notes", schema: Schema([Note.self]), url: notesStore.url, allowsSave: false),
            ModelConfiguration("items", url: itemsStore.url),
        ])
        let context = ModelContext(container)
        context.insert(Self.item("saved"))
        try context.save()
        context.insert(Note(text: "refused"))
        context.insert(Self.item("waits"))
        #expect(throws: SwiftDataError.saveNotAllowed) { try context.save() }
        #expect(context.hasChanges)
        #expect(try ModelContext(try itemsStore.container(Item.self)).fetch(FetchDescriptor<Item>()).map(\.name) == ["saved"])
        #expect(try ModelContext(try notesStore.container(Note.self)).fetch(FetchDescriptor<Note>()).map(\.text) == ["kept"])
    }
}
