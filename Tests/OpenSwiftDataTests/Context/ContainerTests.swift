import Foundation
import Testing
import OpenSwiftData

/// ModelContainer and ModelConfiguration forms and options.
@Suite struct ContainerTests {
    @Test func variadicAndSchemaFormsOpenTheSameStore() throws {
        let store = TemporaryStore()
        let configuration = ModelConfiguration(url: store.url)
        let first = try ModelContainer(for: Note.self, Item.self, configurations: configuration)
        let context = ModelContext(first)
        context.insert(Note(text: "shared"))
        try context.save()
        let second = try ModelContainer(for: Schema([Note.self, Item.self]), configurations: [configuration])
        #expect(try ModelContext(second).fetch(FetchDescriptor<Note>()).map(\.text) == ["shared"])
        #expect(second.schema.entities.map(\.name).sorted() == ["Item", "Note"])
        #expect(second.configurations.first?.url == store.url)
    }

    /// Apple's iOS 18 form for any store's configuration: model classes and configurations of
    /// any `DataStoreConfiguration` type, passed one by one.
    @Test func modelClassesOpenWithAnyStoresConfiguration() throws {
        let store = TemporaryStore()
        let container = try ModelContainer(for: Note.self, configurations: ArchiveConfiguration(url: store.url))
        let context = ModelContext(container)
        context.insert(Note(text: "archived"))
        try context.save()
        let reopened = try ModelContainer(for: Note.self, configurations: ArchiveConfiguration(url: store.url))
        #expect(try ModelContext(reopened).fetch(FetchDescriptor<Note>()).map(\.text) == ["archived"])
        #expect(reopened.configurations.isEmpty, "an archive configuration is no ModelConfiguration")

        let mixed: [any DataStoreConfiguration] = [ModelConfiguration(isStoredInMemoryOnly: true)]
        let sqlite = try ModelContainer(for: Note.self, configurations: mixed[0])
        #expect(sqlite.configurations.count == 1, "a ModelConfiguration passed as a DataStoreConfiguration is one")
    }

    /// Every initializer shape SwiftData code writes resolves to one initializer (an ambiguous
    /// call would not compile) and opens a container of the given models.
    @Test func everyInitializerShapeResolves() throws {
        let memory = ModelConfiguration(isStoredInMemoryOnly: true)
        let forms: [() throws -> ModelContainer] = [
            { try ModelContainer(for: Note.self, configurations: memory) },
            { try ModelContainer(for: Note.self, migrationPlan: nil, configurations: memory) },
            { try ModelContainer(for: Note.self, Item.self, configurations: memory, ModelConfiguration("items", schema: Schema([Item.self]), isStoredInMemoryOnly: true)) },
            { try ModelContainer(for: Schema([Note.self]), configurations: memory) },
            { try ModelContainer(for: Schema([Note.self]), configurations: [memory]) },
            { try ModelContainer(for: Schema([Note.self]), migrationPlan: nil, configurations: [memory]) },
        ]
        for (index, form) in forms.enumerated() {
            let container = try form()
            #expect(container.schema.entities.map(\.name).contains("Note"), "form \(index)")
            #expect(!container.configurations.isEmpty, "form \(index) keeps its ModelConfiguration")
        }
        // These open the default store, so they are only compiled.
        let defaultStoreForms: [() throws -> ModelContainer] = [
            { try ModelContainer(for: Note.self) },
            { try ModelContainer(for: Note.self, Item.self) },
            { try ModelContainer(for: Schema([Note.self])) },
            { try ModelContainer(for: Schema([Note.self]), configurations: []) },
        ]
        _ = defaultStoreForms
    }

    /// A configuration without a URL keeps its store in a file named after it: a name that is no
    /// file name is refused before anything is created, and one with a URL is only a label.
    @Test func aConfigurationNameThatIsNoFileNameIsRefused() throws {
        let nested = ModelConfiguration("trips/2026").url.deletingLastPathComponent()
        let existedBefore = FileManager.default.fileExists(atPath: nested.path)
        for name in ["trips/2026", "..", ""] {
            let error = #expect(throws: SwiftDataError.configurationFileNameContainsInvalidCharacters) {
                try ModelContainer(for: Note.self, configurations: ModelConfiguration(name))
            }
            #expect(error?.description.contains("url:") == true)
        }
        #expect(throws: SwiftDataError.configurationFileNameTooLong) {
            try ModelContainer(for: Note.self, configurations: ModelConfiguration(String(repeating: "n", count: 250)))
        }
        #expect(FileManager.default.fileExists(atPath: nested.path) == existedBefore, "no folder was created for the name")

        let store = TemporaryStore()
        let labelled = try ModelContainer(for: Note.self, configurations: ModelConfiguration("trips/2026", url: store.url))
        let context = ModelContext(labelled)
        context.insert(Note(text: "kept"))
        try context.save()
        #expect(try ModelContext(labelled).fetchCount(FetchDescriptor<Note>()) == 1)
        _ = try ModelContainer(for: Note.self, configurations: ModelConfiguration("trips 2026", isStoredInMemoryOnly: true))
    }

    @Test func inMemoryStoresKeepNothingAfterTheContainerGoes() throws {
        let configuration = ModelConfiguration(isStoredInMemoryOnly: true)
        var container: ModelContainer? = try ModelContainer(for: Note.self, configurations: configuration)
        let context = ModelContext(container!)
        context.insert(Note(text: "ephemeral"))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Note>()) == 1)
        container = try ModelContainer(for: Note.self, configurations: configuration)
        #expect(try ModelContext(container!).fetchCount(FetchDescriptor<Note>()) == 0)
    }

    @Test func readOnlyConfigurationsRefuseToSave() throws {
        let store = TemporaryStore()
        do {
            let context = ModelContext(try store.container(Note.self))
            context.insert(Note(text: "saved"))
            try context.save()
        }
        let before = store.snapshot()
        let context = ModelContext(try store.container(Note.self, allowsSave: false))
        #expect(try context.fetch(FetchDescriptor<Note>()).map(\.text) == ["saved"])
        context.insert(Note(text: "refused"))
        #expect(throws: SwiftDataError.saveNotAllowed) { try context.save() }
        #expect(context.hasChanges, "a refused save keeps the pending changes")
        #expect(store.snapshot()[0] == before[0])
    }

    @Test func duplicateConfigurationNamesAreRejected() throws {
        let store = TemporaryStore()
        let configuration = ModelConfiguration("same", url: store.url)
        #expect(throws: SwiftDataError.duplicateConfiguration) {
            try ModelContainer(for: Schema([Note.self]), configurations: [configuration, ModelConfiguration("same", isStoredInMemoryOnly: true)])
        }
    }

    @Test func eraseRemovesEveryModelAndKeepsTheStoreUsable() throws {
        let store = TemporaryStore()
        let container = try store.container(Note.self, Item.self)
        let context = ModelContext(container)
        context.insert(Note(text: "a"))
        context.insert(makeItem(1))
        try context.save()
        try container.erase()
        let fresh = ModelContext(container)
        #expect(try fresh.fetchCount(FetchDescriptor<Note>()) == 0)
        #expect(try fresh.fetchCount(FetchDescriptor<Item>()) == 0)
        fresh.insert(Note(text: "after"))
        try fresh.save()
        #expect(try ModelContext(try store.container(Note.self, Item.self)).fetchCount(FetchDescriptor<Note>()) == 1)
    }

    @MainActor @Test func theMainContextSavesAutomatically() async throws {
        let store = TemporaryStore()
        let container = try store.container(Note.self)
        #expect(container.mainContext === container.mainContext)
        #expect(container.mainContext.autosaveEnabled)
        container.mainContext.insert(Note(text: "autosaved"))
        await waitUntil { !container.mainContext.hasChanges }
        #expect(!container.mainContext.hasChanges)
        #expect(try ModelContext(try store.container(Note.self)).fetch(FetchDescriptor<Note>()).map(\.text) == ["autosaved"])
    }

    @Test func newContextsDoNotAutosave() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Note.self))
        #expect(!context.autosaveEnabled)
    }
}
