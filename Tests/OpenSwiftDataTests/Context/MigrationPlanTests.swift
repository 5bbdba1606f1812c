import Foundation
import Testing
import OpenSwiftData

enum NotesV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self] }
}

enum NotesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self] }
    static var stages: [MigrationStage] { [] }
}

/// The migration API compiles as in SwiftData; stages are not run yet.
@Suite struct MigrationPlanTests {
    @Test func aContainerWithAPlanOpensACurrentStore() throws {
        let store = TemporaryStore()
        let configuration = ModelConfiguration(url: store.url)
        do {
            let container = try ModelContainer(for: Schema(versionedSchema: NotesV1.self), migrationPlan: NotesPlan.self, configurations: configuration)
            let context = ModelContext(container)
            context.insert(Note(text: "versioned"))
            try context.save()
            #expect(container.migrationPlan.map(ObjectIdentifier.init) == ObjectIdentifier(NotesPlan.self))
        }
        let reopened = try ModelContainer(for: Note.self, migrationPlan: NotesPlan.self, configurations: configuration)
        #expect(try ModelContext(reopened).fetch(FetchDescriptor<Note>()).map(\.text) == ["versioned"])
        #expect(try ModelContainer(for: Note.self, configurations: configuration).migrationPlan == nil)
    }

    @Test func aStoreOfAnotherSchemaIsRefusedUntouchedEvenWithAPlan() throws {
        let store = TemporaryStore()
        do {
            let context = ModelContext(try store.container(Note.self))
            context.insert(Note(text: "old"))
            try context.save()
        }
        let before = store.snapshot()
        #expect(throws: SwiftDataError.schemaMismatch) {
            try ModelContainer(for: OtherShape.Note.self, migrationPlan: NotesPlan.self, configurations: ModelConfiguration(url: store.url))
        }
        #expect(store.snapshot() == before)
    }

    @Test func stagesDescribeTheirVersions() {
        let stage = MigrationStage.custom(fromVersion: NotesV1.self, toVersion: NotesV1.self, willMigrate: { _ in }, didMigrate: nil)
        guard case .custom(let from, let to, let willMigrate, let didMigrate) = stage else {
            Issue.record("expected a custom stage")
            return
        }
        #expect(from.versionIdentifier == Schema.Version(1, 0, 0))
        #expect(ObjectIdentifier(to) == ObjectIdentifier(NotesV1.self))
        #expect(willMigrate != nil && didMigrate == nil)
    }
}
