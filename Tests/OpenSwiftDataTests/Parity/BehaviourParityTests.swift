import Foundation
import Testing
@testable import OpenSwiftData

/// The five behaviours other projects' SwiftData test suites found different, each written the
/// way an app writes it. The answers, with Apple's sources, are in DifferencesFromSwiftData.md.
@Suite struct BehaviourParityTests {
    /// 1. A custom stage that empties a table lets the next version add a required property.
    @Test func aStageThatEmptiesATableCanAddARequiredProperty() throws {
        let store = TemporaryStore()
        let configuration = ModelConfiguration(url: store.url)
        do {
            let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: TodoSchemaV1.self), configurations: configuration))
            for title in ["a", "b", "c"] { context.insert(TodoSchemaV1.Todo(title: title)) }
            try context.save()
        }
        do {
            let container = try ModelContainer(for: Schema(versionedSchema: TodoSchemaV2.self), migrationPlan: EmptyingTodoPlan.self, configurations: configuration)
            let context = ModelContext(container)
            #expect(try context.fetchCount(FetchDescriptor<TodoSchemaV2.Todo>()) == 0)
            context.insert(TodoSchemaV2.Todo(title: "new", details: "d", editHistory: ["created"]))
            try context.save()
        }
        let reopened = ModelContext(try ModelContainer(for: Schema(versionedSchema: TodoSchemaV2.self), migrationPlan: EmptyingTodoPlan.self, configurations: configuration))
        let todos = try reopened.fetch(FetchDescriptor<TodoSchemaV2.Todo>())
        #expect(todos.map(\.editHistory) == [["created"]])
    }

    /// 1. With rows left, the new required property still needs a value: a clear error, the store
    ///    unchanged and still readable with the old version.
    @Test func rowsLeftWithoutAValueStillNeedOne() throws {
        let store = TemporaryStore()
        let configuration = ModelConfiguration(url: store.url)
        do {
            let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: TodoSchemaV1.self), configurations: configuration))
            context.insert(TodoSchemaV1.Todo(title: "kept", details: "x"))
            try context.save()
        }
        var message = ""
        do {
            _ = try ModelContainer(for: Schema(versionedSchema: TodoSchemaV2.self), migrationPlan: KeepingTodoPlan.self, configurations: configuration)
            Issue.record("the migration should fail")
        } catch {
            message = "\(error)"
        }
        #expect(message.contains("editHistory"))
        #expect(message.contains("1 row(s)"))
        let old = ModelContext(try ModelContainer(for: Schema(versionedSchema: TodoSchemaV1.self), configurations: configuration))
        #expect(try old.fetch(FetchDescriptor<TodoSchemaV1.Todo>()).map(\.title) == ["kept"])
    }

    /// 2. As Apple documents, `autosaveEnabled` is `false` for contexts you create and `true` for
    ///    the main context; turned on, a context changed on the main thread saves by itself.
    @MainActor @Test func autosaveIsOffForContextsYouCreateUntilYouTurnItOn() async throws {
        let store = TemporaryStore()
        let container = try store.container(Note.self)
        #expect(container.mainContext.autosaveEnabled)
        let context = ModelContext(container)
        #expect(!context.autosaveEnabled)
        context.insert(Note(text: "manual"))
        for _ in 0..<20 { await Task.yield() }
        #expect(context.hasChanges, "no autosave while it is off")

        context.autosaveEnabled = true
        context.insert(Note(text: "automatic"))
        await waitUntil { !context.hasChanges }
        #expect(!context.hasChanges)
        let other = ModelContext(try store.container(Note.self))
        #expect(try other.fetch(FetchDescriptor<Note>(sortBy: [SortDescriptor(\.text)])).map(\.text) == ["automatic", "manual"])
    }

    /// 3. A deleted model, once saved, holds no relationships.
    @Test func aDeletedModelHoldsNoRelationshipsAfterSave() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.graphContainer())
        let journey = Journey(name: "Alps")
        let lodging = Lodging(name: "Hut")
        journey.lodging = lodging
        let writer = Writer(name: "Ann")
        let book = Book(title: "Notes", writer: writer)
        context.insert(journey)
        context.insert(book)
        try context.save()

        context.delete(journey)
        context.delete(book)
        #expect(journey.lodging === lodging, "until the save, the deletion is pending")
        try context.save()
        #expect(journey.lodging == nil)
        #expect(journey.outings.isEmpty)
        #expect(book.writer == nil)
        #expect(lodging.journey == nil)
        #expect(writer.books.isEmpty)
    }

    /// 4. Two arrays of each other without `inverse:` are two one-way relationships, and so is a
    ///    to-many with a non-optional to-one; an optional to-one and a to-many are inferred inverses.
    @Test func inversesAreInferredAsSwiftDataInfersThem() throws {
        let store = TemporaryStore()
        let models: [any PersistentModel.Type] = [Reader.self, Novel.self, School.self, Student.self, Director.self, Movie.self]
        let context = ModelContext(try ModelContainer(for: Schema(models), configurations: ModelConfiguration(url: store.url)))
        let reader = Reader(name: "Ida")
        let novel = Novel(title: "Dune")
        reader.books.append(novel)
        let school = School(name: "North")
        let student = Student(name: "Bo", school: school)
        let director = Director(name: "Varda")
        let movie = Movie(title: "Cleo")
        movie.director = director
        context.insert(reader)
        context.insert(student)
        context.insert(movie)
        #expect(novel.readers.isEmpty)
        #expect(school.students.isEmpty)
        #expect(director.movies.map(\.title) == ["Cleo"])
        try context.save()

        let reopened = ModelContext(try ModelContainer(for: Schema(models), configurations: ModelConfiguration(url: store.url)))
        let fetchedReader = try #require(try reopened.fetch(FetchDescriptor<Reader>()).first)
        #expect(fetchedReader.books.map(\.title) == ["Dune"])
        #expect(try reopened.fetch(FetchDescriptor<Novel>()).first?.readers.isEmpty == true)
        #expect(try reopened.fetch(FetchDescriptor<School>()).first?.students.isEmpty == true)
        #expect(try reopened.fetch(FetchDescriptor<Student>()).first?.school.name == "North")
        #expect(try reopened.fetch(FetchDescriptor<Director>()).first?.movies.map(\.title) == ["Cleo"])
    }

    /// 5. A `.cascade` deletion shows in this context's fetches at once (its rules apply as pending
    ///    changes are processed); the store, and so other contexts, change at the save.
    @Test func cascadedModelsLeaveFetchesBeforeTheSave() throws {
        let store = TemporaryStore()
        let container = try store.graphContainer()
        let context = ModelContext(container)
        let journey = Journey(name: "Coast")
        journey.outings = [Outing(title: "Swim"), Outing(title: "Hike")]
        context.insert(journey)
        context.insert(Outing(title: "Elsewhere"))
        try context.save()

        context.delete(journey)
        #expect(try context.fetch(FetchDescriptor<Outing>()).map(\.title) == ["Elsewhere"])
        #expect(try context.fetchCount(FetchDescriptor<Outing>()) == 1)
        #expect(context.deletedModelsArray.count == 3)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Outing>()) == 3, "unsaved: the store is unchanged")

        context.rollback()
        #expect(try context.fetchCount(FetchDescriptor<Outing>()) == 3)
        context.delete(journey)
        context.processPendingChanges()
        #expect(context.deletedModelsArray.count == 3)
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Outing>()).map(\.title) == ["Elsewhere"])
    }

    /// 5. A deletion by predicate removes the rows at the next save, as Apple documents.
    @Test func aDeletionByPredicateReachesOtherContextsAtTheSave() throws {
        let store = TemporaryStore()
        let container = try store.container(Note.self)
        let context = ModelContext(container)
        for text in ["keep", "drop", "drop"] { context.insert(Note(text: text)) }
        try context.save()

        try context.delete(model: Note.self, where: #Predicate { $0.text == "drop" })
        #expect(try context.fetch(FetchDescriptor<Note>()).map(\.text) == ["keep"])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Note>()) == 3)
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Note>()).map(\.text) == ["keep"])

        // A context that never loaded the rows leaves them out of its fetches too.
        let fresh = ModelContext(container)
        try fresh.delete(model: Note.self, where: #Predicate { $0.text == "keep" })
        #expect(try fresh.fetch(FetchDescriptor<Note>()).isEmpty)
        #expect(try fresh.fetchCount(FetchDescriptor<Note>()) == 0)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Note>()) == 1)
    }
}
