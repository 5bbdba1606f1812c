import Foundation
import Testing
@testable import OpenSwiftData

/// Insert, change, delete, save and rollback, as a SwiftData user relies on them.
@Suite struct ContextChangeTrackingTests {
    @Test(arguments: Backend.allCases) func insertedModelsAreTrackedUntilSaved(_ backend: Backend) throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Note.self, backend: backend))
        #expect(!context.hasChanges)
        let note = Note(text: "hello")
        #expect(note.modelContext == nil)
        context.insert(note)
        #expect(note.modelContext === context)
        #expect(context.hasChanges)
        #expect(note.hasChanges)
        #expect(context.insertedModelsArray.count == 1)
        #expect(note.persistentModelID.primaryKey == nil, "a new model has a temporary identifier")
        try context.save()
        #expect(!context.hasChanges)
        #expect(!note.hasChanges)
        #expect(context.insertedModelsArray.isEmpty)
        #expect(note.persistentModelID.primaryKey != nil, "a saved model has a permanent identifier")

        let reopened = ModelContext(try store.container(Note.self, backend: backend))
        let notes = try reopened.fetch(FetchDescriptor<Note>())
        #expect(notes.map(\.text) == ["hello"])
        #expect(notes[0].persistentModelID == note.persistentModelID)
    }

    @Test(arguments: Backend.allCases) func changesAreSavedAndListed(_ backend: Backend) throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Note.self, backend: backend))
        let note = Note(text: "draft")
        context.insert(note)
        try context.save()
        note.text = "final"
        #expect(context.hasChanges)
        #expect(context.changedModelsArray.count == 1)
        #expect(context.changedModelsArray.first as? Note === note)
        try context.save()
        #expect(context.changedModelsArray.isEmpty)
        let reopened = ModelContext(try store.container(Note.self, backend: backend))
        #expect(try reopened.fetch(FetchDescriptor<Note>()).map(\.text) == ["final"])
    }

    @Test(arguments: Backend.allCases) func deletedModelsLeaveTheStore(_ backend: Backend) throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Note.self, backend: backend))
        let keep = Note(text: "keep"), drop = Note(text: "drop")
        context.insert(keep)
        context.insert(drop)
        try context.save()
        context.delete(drop)
        #expect(drop.isDeleted)
        #expect(context.deletedModelsArray.count == 1)
        #expect(context.hasChanges)
        try context.save()
        #expect(context.deletedModelsArray.isEmpty)
        let reopened = ModelContext(try store.container(Note.self, backend: backend))
        #expect(try reopened.fetch(FetchDescriptor<Note>()).map(\.text) == ["keep"])
    }

    @Test(arguments: Backend.allCases) func deletingAnUnsavedModelForgetsIt(_ backend: Backend) throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Note.self, backend: backend))
        let note = Note(text: "never saved")
        context.insert(note)
        context.delete(note)
        #expect(!context.hasChanges)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Note>()) == 0)
    }

    @Test(arguments: Backend.allCases) func rollbackDiscardsInsertsChangesAndDeletes(_ backend: Backend) throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Note.self, backend: backend))
        let changed = Note(text: "original"), deleted = Note(text: "survivor")
        context.insert(changed)
        context.insert(deleted)
        try context.save()

        changed.text = "edited"
        context.delete(deleted)
        let inserted = Note(text: "new")
        context.insert(inserted)
        context.rollback()

        #expect(!context.hasChanges)
        #expect(changed.text == "original")
        #expect(!deleted.isDeleted)
        #expect(inserted.modelContext == nil)
        try context.save()
        let reopened = ModelContext(try store.container(Note.self, backend: backend))
        let texts = try reopened.fetch(FetchDescriptor<Note>(sortBy: [SortDescriptor(\.text)])).map(\.text)
        #expect(texts == ["original", "survivor"])
    }

    @Test(arguments: Backend.allCases) func transactionSavesOnSuccessAndRollsBackOnError(_ backend: Backend) throws {
        struct Abort: Error {}
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Note.self, backend: backend))
        try context.transaction {
            context.insert(Note(text: "committed"))
        }
        #expect(!context.hasChanges)
        #expect(throws: Abort.self) {
            try context.transaction {
                context.insert(Note(text: "abandoned"))
                throw Abort()
            }
        }
        #expect(!context.hasChanges)
        let reopened = ModelContext(try store.container(Note.self, backend: backend))
        #expect(try reopened.fetch(FetchDescriptor<Note>()).map(\.text) == ["committed"])
    }

    @Test(arguments: Backend.allCases) func deleteByPredicateDoesNotNeedLoadedModels(_ backend: Backend) throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Item.self, backend: backend))
        for index in 0..<100 { context.insert(makeItem(index)) }
        try context.save()

        let other = ModelContext(context.container)
        let registered = try other.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.count == 4 }))
        try other.delete(model: Item.self, where: #Predicate { $0.count % 10 == 4 || $0.name.contains("7") })
        #expect(registered.first?.isDeleted == true, "a registered model that matches is marked deleted at once")
        try other.save()

        let expected = (0..<100).filter { $0 % 10 != 4 && !"item \($0)".contains("7") }.count
        let reopened = ModelContext(try store.container(Item.self, backend: backend))
        #expect(try reopened.fetchCount(FetchDescriptor<Item>()) == expected)
        try reopened.delete(model: Item.self)
        try reopened.save()
        #expect(try reopened.fetchCount(FetchDescriptor<Item>()) == 0)
    }

    @Test(arguments: Backend.allCases) func transientPropertiesKeepTheirDefaultAfterAFetch(_ backend: Backend) throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Person.self, backend: backend))
        let person = Person(email: "a@example.com", givenName: "Ada", familyName: "Lovelace")
        person.visits = 99
        person.age = 36
        context.insert(person)
        try context.save()
        #expect(person.visits == 99, "a transient value lives as long as its object")

        let reopened = ModelContext(try store.container(Person.self, backend: backend))
        let fetched = try #require(try reopened.fetch(FetchDescriptor<Person>()).first)
        #expect(fetched.visits == 7)
        #expect(fetched.age == 36)
    }

    @Test(arguments: Backend.allCases) func externalStorageLoadsLazilyAndRoundTrips(_ backend: Backend) throws {
        let store = TemporaryStore()
        let pixels = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let context = ModelContext(try store.container(Photo.self, backend: backend))
        context.insert(Photo(title: "sunset", pixels: pixels))
        try context.save()

        let reopened = ModelContext(try store.container(Photo.self, backend: backend))
        let photo = try #require(try reopened.fetch(FetchDescriptor<Photo>()).first)
        #expect(photo.title == "sunset")
        #expect(photo.pixels == pixels)
        photo.pixels = Data([1, 2, 3])
        try reopened.save()
        let again = ModelContext(try store.container(Photo.self, backend: backend))
        #expect(try again.fetch(FetchDescriptor<Photo>()).first?.pixels == Data([1, 2, 3]))
    }

    @Test func saveWithoutChangesDoesNothing() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Note.self, allowsSave: false))
        try context.save()
        context.processPendingChanges()
        #expect(!context.hasChanges)
    }
}

func makeItem(_ index: Int) -> Item {
    Item(name: "item \(index)", note: index % 3 == 0 ? nil : "note \(index)", count: index, optionalCount: index % 4 == 0 ? nil : index,
         score: Double(index) / 4, optionalScore: nil, flag: index % 2 == 0,
         date: Date(timeIntervalSinceReferenceDate: Double(index) * 3600), price: Decimal(index) / 100,
         big: UInt64(index) << 40, code: UUID(), mood: Mood.allCases[index % 3])
}
