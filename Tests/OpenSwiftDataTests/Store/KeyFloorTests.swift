import Foundation
import Testing
@testable import OpenSwiftData

@Model final class KFNote {
    var text: String
    init(text: String) { self.text = text }
}

/// A connection remembers the largest deleted key of each table it read (``KnownKeyFloors``) while
/// its database does not change; whatever changes it (another container, another program), a new
/// row never takes a deleted model's identifier. The tests that write into the file as another
/// program would name SQLite, whatever the run's default store.
@Suite struct KeyFloorTests {
    let store = TemporaryStore()

    /// The backends where two containers on one store see each other's saves.
    static let sharedBackends = Backend.allCases.filter { $0 != .dataStore }

    private func notes(_ texts: some Sequence<String>, in context: ModelContext) throws -> [KFNote] {
        let notes = texts.map { KFNote(text: $0) }
        for note in notes { context.insert(note) }
        try context.save()
        return notes
    }

    /// What the remembered floors rest on: once a connection begins a transaction, its data
    /// version differs from the one it had after its own last commit if another connection
    /// committed since.
    @Test func aConnectionsDataVersionMovesWhenAnotherConnectionCommitted() throws {
        _ = try store.container(KFNote.self, backend: .sqlite)
        let writer = try SQLiteConnection(path: store.url.path, readOnly: false, create: false)
        let other = try SQLiteConnection(path: store.url.path, readOnly: false, create: false)
        try writer.execute("BEGIN IMMEDIATE; CREATE TABLE t (a INTEGER); COMMIT")
        let afterOwnCommit = try #require(writer.dataVersion)
        try writer.execute("BEGIN IMMEDIATE")
        #expect(writer.dataVersion == afterOwnCommit, "nothing else committed")
        try writer.execute("COMMIT")
        try other.execute("INSERT INTO t VALUES (1)")
        try writer.execute("BEGIN IMMEDIATE")
        #expect(writer.dataVersion != afterOwnCommit)
        try writer.execute("COMMIT")
    }

    /// Another container deletes the newest rows between two saves of this one, whose connection
    /// had read the table's floor: this container's next rows take keys above the deleted ones.
    @Test(arguments: sharedBackends)
    func aRowAfterAnotherContainerDeletedTheNewestTakesNoDeletedKey(_ backend: Backend) throws {
        let context = ModelContext(try store.container(KFNote.self, backend: backend))
        _ = try notes(["a", "b", "c"], in: context)
        _ = try notes(["d"], in: context)
        let other = ModelContext(try store.container(KFNote.self, backend: backend))
        let newest = try other.fetch(FetchDescriptor<KFNote>(sortBy: [SortDescriptor(\.text, order: .reverse)])).prefix(2)
        let deletedIDs = Set(newest.map(\.persistentModelID))
        #expect(Set(newest.map(\.text)) == ["c", "d"])
        for note in newest { other.delete(note) }
        try other.save()
        let later = try notes(["e", "f"], in: context)
        let laterIDs = Set(later.map(\.persistentModelID))
        #expect(laterIDs.isDisjoint(with: deletedIDs), "a new row took a deleted row's identifier")
        let reopened = ModelContext(try store.container(KFNote.self, backend: backend))
        let stored = try reopened.fetch(FetchDescriptor<KFNote>(sortBy: [SortDescriptor(\.text)]))
        #expect(stored.map(\.text) == ["a", "b", "e", "f"])
        #expect(Set(stored.suffix(2).map(\.persistentModelID)) == laterIDs)
    }

    /// A container whose saves so far only changed rows has read no floor (nor its data version);
    /// another container then deletes the newest rows and saves, and this one's first insert still
    /// takes a key above them, here and after a second round of the same.
    @Test(arguments: sharedBackends)
    func aFirstInsertAfterSavesOfChangesOnlyTakesNoDeletedKey(_ backend: Backend) throws {
        let writer = ModelContext(try store.container(KFNote.self, backend: backend))
        _ = try notes(["a", "b", "c", "d", "e"], in: writer)
        let context = ModelContext(try store.container(KFNote.self, backend: backend))
        let other = ModelContext(try store.container(KFNote.self, backend: backend))
        var deletedIDs: Set<PersistentIdentifier> = []
        for round in 1...2 {
            for note in try context.fetch(FetchDescriptor<KFNote>()) { note.text += "+" }
            try context.save()
            let newest = try other.fetch(FetchDescriptor<KFNote>(sortBy: [SortDescriptor(\.text, order: .reverse)])).prefix(2)
            deletedIDs.formUnion(newest.map(\.persistentModelID))
            for note in newest { other.delete(note) }
            try other.save()
            let added = try notes(["n\(round)"], in: context)
            #expect(!deletedIDs.contains(added[0].persistentModelID), "round \(round): a new row took a deleted row's identifier")
        }
        let reopened = ModelContext(try store.container(KFNote.self, backend: backend))
        let stored = try reopened.fetch(FetchDescriptor<KFNote>(sortBy: [SortDescriptor(\.text)]))
        #expect(stored.map(\.text) == ["a++", "b++", "n2"])
        #expect(Set(stored.map(\.persistentModelID)).isDisjoint(with: deletedIDs))
    }

    /// Another program raises a table's floor between two saves: the next row moves above it.
    @Test func aFloorAnotherProgramRaisedMovesTheNextRowAboveIt() throws {
        let context = ModelContext(try store.container(KFNote.self, backend: .sqlite))
        _ = try notes(["a"], in: context)
        _ = try notes(["b"], in: context)
        let connection = try SQLiteConnection(path: store.url.path, readOnly: false, create: false)
        try connection.execute("INSERT OR REPLACE INTO osd_key_floors (table_name, floor) VALUES ('KFNote', 100)")
        let later = try notes(["c", "d"], in: context)
        #expect(later.map { $0.persistentModelID.primaryKey } == [101, 102])
        let reopened = ModelContext(try store.container(KFNote.self, backend: .sqlite))
        #expect(try reopened.fetch(FetchDescriptor<KFNote>(sortBy: [SortDescriptor(\.text)])).map(\.text) == ["a", "b", "c", "d"])
    }

    /// A save that deleted the newest rows and failed leaves them in place; saved again, the
    /// deletion holds and the new rows take keys above the deleted ones.
    @Test func aFailedSaveThatRaisedAFloorLeavesNoKeyReused() throws {
        let container = try store.container(KFNote.self, backend: .sqlite)
        let context = ModelContext(container)
        let first = try notes(["a", "b", "c"], in: context)
        let connection = try SQLiteConnection(path: store.url.path, readOnly: false, create: false)
        try connection.execute("CREATE TRIGGER kf_refuse BEFORE INSERT ON KFNote WHEN NEW.text = 'refused' BEGIN SELECT RAISE(ABORT, 'refused'); END")
        let deletedIDs = Set(first.dropFirst().map(\.persistentModelID))
        for note in first.dropFirst() { context.delete(note) }
        let refused = KFNote(text: "refused")
        context.insert(refused)
        #expect(throws: (any Error).self) { try context.save() }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<KFNote>()) == 3)
        try connection.execute("DROP TRIGGER kf_refuse")
        try context.save()
        #expect(!deletedIDs.contains(refused.persistentModelID))
        let later = try notes(["d"], in: context)
        #expect(!deletedIDs.contains(later[0].persistentModelID))
        let reopened = ModelContext(try store.container(KFNote.self, backend: .sqlite))
        #expect(try reopened.fetch(FetchDescriptor<KFNote>(sortBy: [SortDescriptor(\.text)])).map(\.text) == ["a", "d", "refused"])
    }
}
