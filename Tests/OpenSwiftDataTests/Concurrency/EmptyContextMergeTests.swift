import Foundation
import Testing
@testable import OpenSwiftData

/// A context with no registered models (one that has only inserted, as a server's context per
/// request) skips the work of merging other contexts' saves, and still merges every later save
/// once it holds models.
@Suite struct EmptyContextMergeTests {
    @Test func aContextThatOnlyInsertedMergesLaterSavesOnceItHoldsModels() throws {
        let store = TemporaryStore()
        let container = try ModelContainer(for: Note.self, configurations: ModelConfiguration(url: store.url))
        let seed = ModelContext(container)
        seed.insert(Note(text: "a"))
        try seed.save()

        let inserting = ModelContext(container)
        inserting.insert(Note(text: "new"))
        #expect(inserting.identityMap.holdsNoModels)
        let other = ModelContext(container)
        let shared = try #require(try other.fetch(FetchDescriptor<Note>(predicate: #Predicate { $0.text == "a" })).first)
        shared.text = "b"
        try other.save()
        try inserting.save()

        let held = try #require(try inserting.fetch(FetchDescriptor<Note>(predicate: #Predicate { $0.text == "b" })).first)
        shared.text = "c"
        try other.save()
        other.delete(try #require(try other.fetch(FetchDescriptor<Note>(predicate: #Predicate { $0.text == "new" })).first))
        try other.save()

        // The next fetch merges both saves: the held model reloads, the deleted one leaves.
        let remaining = try inserting.fetch(FetchDescriptor<Note>(sortBy: [SortDescriptor(\.text)]))
        #expect(remaining.map(\.text) == ["c"])
        #expect(held.text == "c")
        #expect(remaining.first === held)

        let reopened = try ModelContainer(for: Note.self, configurations: ModelConfiguration(url: store.url))
        #expect(try ModelContext(reopened).fetch(FetchDescriptor<Note>()).map(\.text) == ["c"])
    }
}
