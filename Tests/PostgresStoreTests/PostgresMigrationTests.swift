import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import Testing

enum NotesV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self] }

    @Model final class Note {
        var title: String
        var body: String?
        var legacy: Int = 0
        init(title: String, body: String? = nil) {
            self.title = title
            self.body = body
        }
    }
}

enum NotesV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self, Folder.self] }

    @Model final class Note {
        @Attribute(originalName: "title") var heading: String
        var body: String = ""
        var pinned: Bool = false
        var tags: [String]?
        init(heading: String) { self.heading = heading }
    }

    @Model final class Folder {
        var name: String
        init(name: String) { self.name = name }
    }
}

enum NotesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: NotesV1.self, toVersion: NotesV2.self)] }
}

/// Lightweight migrations on PostgreSQL, in the transaction that opens the store.
@Suite(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
struct PostgresMigrationTests {
    let configuration: PostgresStoreConfiguration

    init() throws {
        configuration = try PostgresServer.freshConfiguration("migration")
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: NotesV1.self), configurations: [configuration]))
        context.insert(NotesV1.Note(title: "a", body: "first"))
        context.insert(NotesV1.Note(title: "b"))
        try context.save()
    }

    @Test func renamesRequiredFromOptionalAndNewPropertiesMigrateInPlace() throws {
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: NotesV2.self), configurations: [configuration]))
        let notes = try context.fetch(FetchDescriptor<NotesV2.Note>(sortBy: [SortDescriptor(\.heading)]))
        #expect(notes.map(\.heading) == ["a", "b"])
        #expect(notes.map(\.body) == ["first", ""], "nil took the declared initial value")
        #expect(notes.allSatisfy { !$0.pinned && $0.tags == nil })
        context.insert(NotesV2.Folder(name: "inbox"))
        try context.save()
        let columns = try PostgresServer.sql("SELECT string_agg(column_name, ',' ORDER BY column_name) FROM information_schema.columns WHERE table_schema = '\(configuration.name)' AND table_name = 'Note'")
        #expect(columns == ["_pk,body,heading,pinned,tags"], "legacy was dropped, title renamed")
    }

    @Test func aPlanIsRefusedWithNothingChanged() throws {
        let before = try PostgresServer.sql("SELECT value FROM \(configuration.name).osd_metadata WHERE key = 'schema'")
        let error = #expect(throws: SwiftDataError.schemaMismatch) {
            try ModelContainer(for: Schema(versionedSchema: NotesV2.self), migrationPlan: NotesPlan.self, configurations: [configuration])
        }
        #expect(error?.description.contains("migration plan") == true)
        #expect(try PostgresServer.sql("SELECT value FROM \(configuration.name).osd_metadata WHERE key = 'schema'") == before)
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: NotesV1.self), configurations: [configuration]))
        #expect(try context.fetchCount(FetchDescriptor<NotesV1.Note>()) == 2)
    }
}
