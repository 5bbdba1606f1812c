import Foundation
import Testing
import OpenSwiftData
import OpenSwiftDataPostgres

/// Version 1 of a notes app whose later version drops a model, a property and a relationship.
enum NotebookV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Notebook.self, Page.self, Sticker.self] }

    @Model final class Notebook {
        var title: String
        var color: String?
        @Relationship(deleteRule: .nullify) var stickers: [Sticker] = []
        init(title: String, color: String? = nil) { self.title = title; self.color = color }
    }

    @Model final class Page {
        var text: String
        init(text: String) { self.text = text }
    }

    @Model final class Sticker {
        var label: String
        @Relationship(inverse: \Notebook.stickers) var notebooks: [Notebook] = []
        init(label: String) { self.label = label }
    }
}

/// Version 2: `Notebook.color`, the `Page` model and the many-to-many `stickers` are gone.
enum NotebookV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Notebook.self, Sticker.self] }

    @Model final class Notebook {
        var title: String
        init(title: String) { self.title = title }
    }

    @Model final class Sticker {
        var label: String
        init(label: String) { self.label = label }
    }
}

/// The plan that removes version 1's data on purpose.
enum NotebookPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotebookV1.self, NotebookV2.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: NotebookV1.self, toVersion: NotebookV2.self)] }
}

/// A configuration that refuses lightweight migrations that delete data: the open throws
/// `destructiveMigration` naming what would be lost and changes nothing; a plan, the option, or
/// places that hold no data let it run.
@Suite(.serialized) struct DestructiveMigrationTests {
    static var backends: [Backend] { Backend.allCases.filter { $0 != .dataStore } }

    private func configuration(_ backend: Backend, at url: URL, allowingDestruction: Bool?) -> any DataStoreConfiguration {
        switch backend {
        case .postgres:
            var configuration = PostgresTestServer.configuration(for: url)
            if let allowingDestruction { configuration.allowsDestructiveMigration = allowingDestruction }
            return configuration
        default:
            var configuration = ModelConfiguration(url: url)
            if let allowingDestruction { configuration.allowsDestructiveMigration = allowingDestruction }
            return configuration
        }
    }

    /// A version 1 store with a notebook (a color, two stickers) and a page.
    private func makeVersionOne(_ backend: Backend, at url: URL, withData: Bool = true) throws {
        let container = try ModelContainer(
            for: Schema(versionedSchema: NotebookV1.self), configurations: [configuration(backend, at: url, allowingDestruction: true)])
        let context = ModelContext(container)
        let notebook = NotebookV1.Notebook(title: "Ideas", color: withData ? "blue" : nil)
        context.insert(notebook)
        if withData {
            notebook.stickers = [NotebookV1.Sticker(label: "star"), NotebookV1.Sticker(label: "moon")]
            context.insert(NotebookV1.Page(text: "first page"))
        }
        try context.save()
    }

    private func openVersionTwo(_ backend: Backend, at url: URL, allowingDestruction: Bool?, plan: Bool = false) throws -> ModelContainer {
        try ModelContainer(
            for: Schema(versionedSchema: NotebookV2.self), migrationPlan: plan ? NotebookPlan.self : nil,
            configurations: [configuration(backend, at: url, allowingDestruction: allowingDestruction)])
    }

    @Test func theDefaultsAreSwiftDatasOnSQLiteAndSafeOnPostgreSQL() {
        #expect(ModelConfiguration(isStoredInMemoryOnly: true).allowsDestructiveMigration)
        #expect(!PostgresStoreConfiguration(url: URL(string: "postgres://app@127.0.0.1/app")!).allowsDestructiveMigration)
    }

    @Test(arguments: backends)
    func aRefusedOpenNamesWhatWouldBeLostAndChangesNothing(_ backend: Backend) throws {
        let url = TemporaryStore().url
        try makeVersionOne(backend, at: url)
        let error = try #require(throws: SwiftDataError.self) {
            _ = try openVersionTwo(backend, at: url, allowingDestruction: false)
        }
        #expect(error == .destructiveMigration)
        let reason = error.reason ?? ""
        #expect(reason.contains("Notebook.color (1 row)"), "\(reason)")
        #expect(reason.contains("model Page (1 row)"), "\(reason)")
        #expect(reason.contains("relationship Notebook.stickers (2 rows)"), "\(reason)")
        #expect(reason.contains("Nothing was changed"))

        // Version 1 opens as it was, with every value.
        let again = try ModelContainer(
            for: Schema(versionedSchema: NotebookV1.self), configurations: [configuration(backend, at: url, allowingDestruction: false)])
        let context = ModelContext(again)
        let notebook = try #require(try context.fetch(FetchDescriptor<NotebookV1.Notebook>()).first)
        #expect(notebook.color == "blue")
        #expect(Set(notebook.stickers.map(\.label)) == ["star", "moon"])
        #expect(try context.fetchCount(FetchDescriptor<NotebookV1.Page>()) == 1)
    }

    @Test(arguments: backends)
    func theOptionOrAPlanLetsTheDataGo(_ backend: Backend) throws {
        for plan in [false, true] {
            let url = TemporaryStore().url
            try makeVersionOne(backend, at: url)
            let container = try openVersionTwo(backend, at: url, allowingDestruction: plan ? false : true, plan: plan)
            let context = ModelContext(container)
            #expect(try context.fetch(FetchDescriptor<NotebookV2.Notebook>()).map(\.title) == ["Ideas"])
            #expect(try context.fetchCount(FetchDescriptor<NotebookV2.Sticker>()) == 2)
        }
    }

    @Test(arguments: backends)
    func removalsOfEmptyPlacesAreNotRefused(_ backend: Backend) throws {
        let url = TemporaryStore().url
        try makeVersionOne(backend, at: url, withData: false)
        let container = try openVersionTwo(backend, at: url, allowingDestruction: false)
        #expect(try ModelContext(container).fetch(FetchDescriptor<NotebookV2.Notebook>()).map(\.title) == ["Ideas"])
    }

    @Test func aRenameIsNotARemoval() throws {
        let url = TemporaryStore().url
        do {
            let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: TripsV1.self), configurations: [ModelConfiguration(url: url)]))
            context.insert(TripsV1.Trip(name: "Paris", destination: "France"))
            try context.save()
        }
        // Version 2 renames `destination` (kept) and removes `legacyCode` (which holds 0, data).
        var refusing = ModelConfiguration(url: url)
        refusing.allowsDestructiveMigration = false
        let error = try #require(throws: SwiftDataError.self) {
            _ = try ModelContainer(for: Schema(versionedSchema: TripsV2.self), configurations: [refusing])
        }
        #expect(error.reason?.contains("Trip.legacyCode (1 row)") == true)
        #expect(error.reason?.contains("destination") == false)
    }
}
