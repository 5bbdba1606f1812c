import Foundation
import Testing
@testable import OpenSwiftData

/// A value whose encoding fails when asked to, to make a save fail half-way.
struct Fragile: Codable, Equatable {
    var fails: Bool
    struct Refused: Error {}
    func encode(to encoder: any Encoder) throws {
        if fails { throw Refused() }
        var container = encoder.singleValueContainer()
        try container.encode(fails)
    }
    init(fails: Bool) { self.fails = fails }
    init(from decoder: any Decoder) throws { fails = try decoder.singleValueContainer().decode(Bool.self) }
}

@Model
final class Sample {
    var name: String
    var payload: Fragile
    init(name: String, payload: Fragile = Fragile(fails: false)) {
        self.name = name
        self.payload = payload
    }
}

/// Models of the same entity names with other properties, to provoke a schema mismatch.
enum OtherShape {
    @Model
    final class Note {
        var text: String
        var pages: Int
        init(text: String, pages: Int) {
            self.text = text
            self.pages = pages
        }
    }
}

/// Damaged, foreign, locked and mismatched store files, and saves that fail.
@Suite struct StoreErrorTests {
    /// A store with one saved note.
    private func savedStore() throws -> TemporaryStore {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Note.self))
        context.insert(Note(text: "precious"))
        try context.save()
        return store
    }

    @Test func aFileThatIsNotSQLiteIsRefusedUntouched() throws {
        let store = TemporaryStore()
        let text = Data("These are my notes, not a database.\n".utf8)
        try text.write(to: store.url)
        #expect(throws: SwiftDataError.storeIsNotSQLite) { try store.container(Note.self) }
        #expect(try Data(contentsOf: store.url) == text)
    }

    @Test func aCorruptFileIsRefusedUntouched() throws {
        let store = try savedStore()
        var bytes = try Data(contentsOf: store.url)
        #expect(bytes.count > 1024)
        for offset in stride(from: 100, to: bytes.count, by: 7) { bytes[offset] = 0xA5 }
        try bytes.write(to: store.url)
        try? FileManager.default.removeItem(atPath: store.url.path + "-wal")
        try? FileManager.default.removeItem(atPath: store.url.path + "-shm")
        let error = #expect(throws: SwiftDataError.self) { try store.container(Note.self) }
        #expect(error == .storeIsCorrupt || error == .storeIsNotSQLite)
        #expect(try Data(contentsOf: store.url) == bytes)
    }

    @Test func anSQLiteDatabaseOfAnotherProgramIsRefused() throws {
        let store = TemporaryStore()
        let connection = try SQLiteConnection(path: store.url.path, readOnly: false, create: true)
        try connection.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
        let before = store.snapshot()
        #expect(throws: SwiftDataError.schemaMismatch) { try store.container(Note.self) }
        #expect(store.snapshot() == before)
    }

    @Test func aStoreFromANewerVersionIsRefusedUntouched() throws {
        let store = try savedStore()
        do {
            let connection = try SQLiteConnection(path: store.url.path, readOnly: false, create: false)
            try connection.execute("UPDATE osd_metadata SET value = 99 WHERE key = 'format'")
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let before = store.snapshot()
        let error = #expect(throws: SwiftDataError.storeFromNewerVersion) { try store.container(Note.self) }
        #expect(error?.reason?.contains("99") == true)
        #expect(store.snapshot() == before)
    }

    @Test func aSchemaMismatchNamesTheDifferenceAndLeavesTheFileAlone() throws {
        let store = try savedStore()
        let before = store.snapshot()
        let error = #expect(throws: SwiftDataError.schemaMismatch) { try store.container(OtherShape.Note.self) }
        #expect(error?.reason?.contains("pages") == true)
        #expect(store.snapshot() == before)
        let context = ModelContext(try store.container(Note.self))
        #expect(try context.fetch(FetchDescriptor<Note>()).map(\.text) == ["precious"])
    }

    @Test func aReadOnlyFileGivesAReadOnlyError() throws {
        let store = try savedStore()
        try makeReadOnly(store.url)
        defer { undoReadOnly(store.url) }
        let before = try Data(contentsOf: store.url)
        #expect(throws: SwiftDataError.storeIsReadOnly) {
            let context = ModelContext(try store.container(Note.self))
            context.insert(Note(text: "more"))
            try context.save()
        }
        #expect(try Data(contentsOf: store.url) == before)
    }

    /// Makes a file unwritable, for root too (which ignores permission bits): `chattr +i`.
    private func makeReadOnly(_ url: URL) throws {
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: url.path)
        guard geteuid() == 0 else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["chattr", "+i", url.path]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "chattr +i is needed to make a file read-only for root")
    }

    private func undoReadOnly(_ url: URL) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["chattr", "-i", url.path]
        try? process.run()
        process.waitUntilExit()
        try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
    }

    @Test func readOnlyAndBusyResultCodesMapToTheirErrors() {
        #expect(SQLiteError(code: 8, message: "attempt to write a readonly database", sql: nil).swiftDataError == .storeIsReadOnly)
        #expect(SQLiteError(code: 5, message: "database is locked", sql: nil).swiftDataError == .storeIsBusy)
        #expect(SQLiteError(code: 11, message: "database disk image is malformed", sql: nil).swiftDataError == .storeIsCorrupt)
    }

    @Test func aLockedStoreGivesABusyErrorAndKeepsTheChanges() throws {
        let store = try savedStore()
        let context = ModelContext(try store.container(Note.self))
        let blocker = try SQLiteConnection(path: store.url.path, readOnly: false, create: false)
        try blocker.execute("BEGIN EXCLUSIVE")
        context.insert(Note(text: "waiting"))
        #expect(throws: SwiftDataError.storeIsBusy) { try context.save() }
        #expect(context.hasChanges)
        try blocker.execute("ROLLBACK")
        try context.save()
        #expect(try ModelContext(try store.container(Note.self)).fetchCount(FetchDescriptor<Note>()) == 2)
    }

    /// SQLite lets any program write any value into a `Double` column (it is `ANY`, so that NaN
    /// keeps its bits); what is not a number must not read as one.
    @Test(arguments: ["'x'", "'3.5'", "x'0102'"])
    func aNonNumberAnotherProgramWroteIntoADoubleIsAnErrorNamingTheProperty(_ written: String) throws {
        let fixture = try SavedItemFixture()
        try #require(TemporaryStore.defaultBackend == .sqlite)
        do {
            let connection = try SQLiteConnection(path: fixture.store.url.path, readOnly: false, create: false)
            try connection.execute("UPDATE \"Item\" SET \"score\" = \(written)")
        }
        let context = ModelContext(try fixture.store.container(Item.self))
        let error = #expect(throws: SwiftDataError.self) { try context.fetch(FetchDescriptor<Item>()) }
        #expect(error?.reason?.contains("Item.score") == true, "the error names the property: \(String(describing: error))")
        #expect(try context.fetchCount(FetchDescriptor<Item>()) == 1, "the row is there, unread")
    }

    @Test func aFailedSaveRollsBackTheStoreAndKeepsPendingChanges() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Sample.self))
        let existing = Sample(name: "existing")
        context.insert(existing)
        try context.save()

        existing.name = "changed"
        let good = Sample(name: "good")
        let bad = Sample(name: "bad", payload: Fragile(fails: true))
        context.insert(good)
        context.insert(bad)
        let error = #expect(throws: SwiftDataError.self) { try context.save() }
        #expect(error?.reason?.contains("Sample") == true)
        #expect(error?.reason?.contains("payload") == true)
        #expect(context.hasChanges)
        #expect(context.insertedModelsArray.count == 2)
        #expect(existing.hasChanges)

        let observer = ModelContext(try store.container(Sample.self))
        #expect(try observer.fetch(FetchDescriptor<Sample>()).map(\.name) == ["existing"], "nothing of the failed save was written")

        bad.payload = Fragile(fails: false)
        try context.save()
        let names = try ModelContext(try store.container(Sample.self)).fetch(FetchDescriptor<Sample>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        #expect(names == ["bad", "changed", "good"])
    }
}
