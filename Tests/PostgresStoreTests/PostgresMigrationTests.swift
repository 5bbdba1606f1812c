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

enum NotesV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self, NotesV2.Folder.self] }

    @Model final class Note {
        @Attribute(.unique) var heading: String
        var body: String = ""
        var pinned: Bool = false
        var tags: [String]?
        var summary: String = ""
        init(heading: String) { self.heading = heading }
    }
}

/// Counts the runs of `NotesPlan`'s custom stage.
final class StageRuns: @unchecked Sendable {
    // @unchecked Sendable: `count` is only touched while `lock` is held.
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

let notesStageRuns = StageRuns()

/// Keeps the first note of each title (by body), so that titles can become unique.
@Sendable func removeDuplicateHeadings(_ context: ModelContext) throws {
    notesStageRuns.increment()
    var seen = Set<String>()
    for note in try context.fetch(FetchDescriptor<NotesV2.Note>(sortBy: [SortDescriptor(\.body)])) where !seen.insert(note.heading).inserted {
        context.delete(note)
    }
}

/// Fills each note's summary.
@Sendable func summarize(_ context: ModelContext) throws {
    for note in try context.fetch(FetchDescriptor<NotesV3.Note>()) {
        note.summary = "\(note.heading): \(note.body)"
    }
}

/// V1 → V2 lightweight, then V2 → V3 custom: duplicates removed before headings become unique,
/// then `didMigrate`, which fills the summary in `NotesPlan`.
func notesStages(didMigrate: @escaping @Sendable (ModelContext) throws -> Void = summarize) -> [MigrationStage] {
    [
        .lightweight(fromVersion: NotesV1.self, toVersion: NotesV2.self),
        .custom(fromVersion: NotesV2.self, toVersion: NotesV3.self, willMigrate: removeDuplicateHeadings, didMigrate: didMigrate),
    ]
}

enum NotesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self, NotesV3.self] }
    static var stages: [MigrationStage] { notesStages() }
}

struct NoteStageFailure: Error {}

/// The same stages, but `didMigrate` fails after changing every note.
enum FailingNotesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { NotesPlan.schemas }
    static var stages: [MigrationStage] {
        notesStages { context in
            try summarize(context)
            try context.save()
            throw NoteStageFailure()
        }
    }
}

/// The same stages, but `didMigrate` has the server end the migration's connection, as a killed
/// process or a restarted server would.
enum ConnectionKillingNotesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { NotesPlan.schemas }
    static var stages: [MigrationStage] {
        notesStages { context in
            try summarize(context)
            try context.save()
            // The store's namespace is in its connections' application name; only the
            // connection test's namespaces start with killmig.
            try PostgresServer.sql("SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity WHERE application_name LIKE 'OpenSwiftData killmig\\_%'")
        }
    }
}

/// Migrations on PostgreSQL: lightweight ones in the transaction that opens the store, plans in
/// one transaction of their own (serialized: they count runs of a shared stage).
@Suite(.serialized, .enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
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
        // V2 drops `legacy`, which holds values: a destructive change the store refuses by default.
        var configuration = configuration
        configuration.allowsDestructiveMigration = true
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

    /// Every row of the namespace's tables and its metadata, as text: what "nothing changed" compares.
    private func dump(_ configuration: PostgresStoreConfiguration? = nil) throws -> [String] {
        let configuration = configuration ?? self.configuration
        let tables = try PostgresServer.sql("SELECT tablename FROM pg_tables WHERE schemaname = '\(configuration.name)' ORDER BY tablename")
        return try tables.flatMap { table in
            try PostgresServer.sql("SELECT '\(table): ' || coalesce(string_agg(t::text, ' | ' ORDER BY t::text), '') FROM \(configuration.name).\"\(table)\" t")
        }
    }

    @Test func aPlanRunsItsStagesOnceInOneTransaction() throws {
        let before = notesStageRuns.value
        do {
            let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: NotesV3.self), migrationPlan: NotesPlan.self, configurations: [configuration]))
            let notes = try context.fetch(FetchDescriptor<NotesV3.Note>(sortBy: [SortDescriptor(\.heading)]))
            #expect(notes.map(\.heading) == ["a", "b"])
            #expect(notes.map(\.summary) == ["a: first", "b: "], "didMigrate filled the new property")
            let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
            #expect(history.count == 1, "the stages' saves are not history; only the V1 save is")
            context.insert(NotesV3.Note(heading: "a"))
            try context.save()
            #expect(try context.fetchCount(FetchDescriptor<NotesV3.Note>()) == 2, "the unique constraint the stage added holds: the insert updated a")
        }
        #expect(notesStageRuns.value == before + 1)
        _ = try ModelContainer(for: Schema(versionedSchema: NotesV3.self), migrationPlan: NotesPlan.self, configurations: [configuration])
        #expect(notesStageRuns.value == before + 1, "no stage runs on a store that is current")
    }

    @Test func duplicatesRemovedByWillMigrateLetAUniqueConstraintIn() throws {
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: NotesV1.self), configurations: [configuration]))
        context.insert(NotesV1.Note(title: "a", body: "again"))
        try context.save()
        let error = #expect(throws: SwiftDataError.self, "without the plan, the duplicate blocks the constraint") {
            try ModelContainer(for: Schema(versionedSchema: NotesV3.self), configurations: [configuration])
        }
        #expect(error != nil)
        let migrated = ModelContext(try ModelContainer(for: Schema(versionedSchema: NotesV3.self), migrationPlan: NotesPlan.self, configurations: [configuration]))
        #expect(try migrated.fetch(FetchDescriptor<NotesV3.Note>(sortBy: [SortDescriptor(\.heading)])).map(\.summary) == ["a: again", "b: "])
    }

    @Test func aFailingStageChangesNothing() throws {
        let before = try dump()
        let error = #expect(throws: SwiftDataError.migrationFailed) {
            try ModelContainer(for: Schema(versionedSchema: NotesV3.self), migrationPlan: FailingNotesPlan.self, configurations: [configuration])
        }
        #expect(error?.reason?.contains("2.0.0") == true, "the error names the failing stage's version: \(String(describing: error?.reason))")
        #expect(error?.reason?.contains("NoteStageFailure") == true)
        #expect(try dump() == before, "the first stage's changes were rolled back too")
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: NotesV1.self), configurations: [configuration]))
        #expect(try context.fetchCount(FetchDescriptor<NotesV1.Note>()) == 2)
    }

    @Test func aMigrationWhoseConnectionDiesChangesNothingAndRunsAgain() throws {
        let configuration = try PostgresServer.freshConfiguration("killmig")
        let seed = ModelContext(try ModelContainer(for: Schema(versionedSchema: NotesV1.self), configurations: [configuration]))
        seed.insert(NotesV1.Note(title: "a", body: "first"))
        try seed.save()
        let before = try dump(configuration)
        #expect(throws: SwiftDataError.self) {
            try ModelContainer(for: Schema(versionedSchema: NotesV3.self), migrationPlan: ConnectionKillingNotesPlan.self, configurations: [configuration])
        }
        #expect(try dump(configuration) == before, "the server discarded the migration's transaction with its connection")
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: NotesV3.self), migrationPlan: NotesPlan.self, configurations: [configuration]))
        #expect(try context.fetch(FetchDescriptor<NotesV3.Note>()).map(\.summary) == ["a: first"])
    }

    @Test func containersOpeningAtOnceMigrateOnce() async throws {
        let before = notesStageRuns.value
        let configuration = configuration
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    let container = try ModelContainer(for: Schema(versionedSchema: NotesV3.self), migrationPlan: NotesPlan.self, configurations: [configuration])
                    return try ModelContext(container).fetchCount(FetchDescriptor<NotesV3.Note>())
                }
            }
            for try await count in group { #expect(count == 2) }
        }
        #expect(notesStageRuns.value == before + 1, "the others waited on the opening lock and found the store current")
    }

    @Test func aStoreOfANewerVersionIsRefusedUntouched() throws {
        _ = try ModelContainer(for: Schema(versionedSchema: NotesV3.self), migrationPlan: NotesPlan.self, configurations: [configuration])
        let before = try dump()
        #expect(throws: SwiftDataError.backwardMigration) {
            try ModelContainer(for: Schema(versionedSchema: NotesV2.self), migrationPlan: NotesPlan.self, configurations: [configuration])
        }
        #expect(try dump() == before)
    }
}
