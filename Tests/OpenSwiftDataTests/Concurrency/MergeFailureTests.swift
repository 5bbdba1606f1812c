import Foundation
import Testing
@testable import OpenSwiftData

/// A merge whose store reads fail never makes models look deleted.
@Suite struct MergeFailureTests {
    /// After a save too large for the save log, a context refreshes every registered model; when
    /// that read fails, its models stay as they are, the next fetch throws the error, and the
    /// merge after it succeeds.
    @Test func aFailedRefreshIsNotADeletion() throws {
        let store = TemporaryStore()
        let schema = Schema([Note.self])
        let backend = DecliningStore(try SQLiteStore(url: store.url, schema: schema, allowsSave: true))
        let container = try ModelContainer(for: schema, stores: [(backend, ModelConfiguration(url: store.url))])
        let seed = ModelContext(container)
        for number in 0...SaveLog.largestEntry { seed.insert(Note(text: "n\(number)")) }
        try seed.save()

        let reader = ModelContext(container)
        let kept = try reader.fetch(FetchDescriptor<Note>(predicate: #Predicate { $0.text == "n7" }))
        #expect(kept.count == 1)
        let writer = ModelContext(container)
        for note in try writer.fetch(FetchDescriptor<Note>()) { note.text += "!" }
        try writer.save()   // more updates than the save log keeps one by one

        backend.failingReads.store(SwiftDataError(.storeIsBusy, reason: "injected"))
        #expect(throws: SwiftDataError.storeIsBusy) { try reader.fetch(FetchDescriptor<Note>(predicate: #Predicate { $0.text == "x" })) }
        #expect(!kept[0].isDeleted, "a failed read is not a deletion")

        backend.failingReads.store(nil)
        let again = try reader.fetch(FetchDescriptor<Note>(predicate: #Predicate { $0.text == "n7!" }))
        #expect(again.first === kept[0], "the same object, refreshed")
        #expect(kept[0].text == "n7!")
    }

    /// A model actor's subscript that cannot read the store gives `nil`, and the context's next
    /// fetch throws the error instead of it being lost.
    @Test func aFailedLookupIsReportedByTheNextFetch() throws {
        let store = TemporaryStore()
        let schema = Schema([Note.self])
        let backend = DecliningStore(try SQLiteStore(url: store.url, schema: schema, allowsSave: true))
        let container = try ModelContainer(for: schema, stores: [(backend, ModelConfiguration(url: store.url))])
        let writer = ModelContext(container)
        let note = Note(text: "stored")
        writer.insert(note)
        try writer.save()

        let reader = ModelContext(container)
        backend.failingReads.store(SwiftDataError(.storeIsBusy, reason: "injected"))
        let missing: Note? = reader.existingModel(for: note.persistentModelID)
        #expect(missing == nil)
        backend.failingReads.store(nil)
        #expect(throws: SwiftDataError.storeIsBusy) { try reader.fetch(FetchDescriptor<Note>()) }
        let found: Note? = reader.existingModel(for: note.persistentModelID)
        #expect(found?.text == "stored")
        #expect(try reader.fetch(FetchDescriptor<Note>()).count == 1)
    }
}
