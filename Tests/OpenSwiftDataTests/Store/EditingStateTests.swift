import Foundation
import Testing
import OpenSwiftData

/// A custom store tells contexts apart by the editing state each request carries: every context
/// its own, with its author, announced before its first request and ended when it is released.
@Suite struct EditingStateTests {
    @Test func eachContextsRequestsCarryItsOwnEditingState() throws {
        let log = EditingStateLog()
        let url = URL(fileURLWithPath: "/editing-state/\(UUID().uuidString)")
        let container = try ModelContainer(for: Note.self, configurations: ArchiveConfiguration(url: url, log: log))
        var first: ModelContext? = ModelContext(container)
        first?.author = "importer"
        let second = ModelContext(container)
        let firstState = try #require(first?.editingState)
        #expect(firstState.author == "importer", "the editing state carries the context's author")
        #expect(firstState.id != second.editingState.id, "each context has its own")
        #expect(first?.editingState.id == firstState.id, "and keeps it")

        first?.insert(Note(text: "one"))
        try first?.save()
        _ = try second.fetch(FetchDescriptor<Note>())
        _ = try first?.fetch(FetchDescriptor<Note>())
        // The first state is the container's own, for loading faults no one context asks for.
        let own = try #require(log.events.first)
        #expect(own.hasPrefix("initialize") && !own.contains(firstState.id.uuidString) && !own.contains(second.editingState.id.uuidString))
        #expect(log.events.dropFirst() == [
            "initialize \(firstState.id)",
            "save \(firstState.id) importer",
            "initialize \(second.editingState.id)",
            "fetch \(second.editingState.id) -",
            "fetch \(firstState.id) importer",
        ])

        first = nil
        #expect(log.events.last == "invalidate \(firstState.id)", "a released context's state ends")
        #expect(log.events.filter { $0.hasPrefix("invalidate") }.count == 1)
    }

    @Test func settingTheEditingStateSetsTheAuthorAndTheIdentity() throws {
        let log = EditingStateLog()
        let url = URL(fileURLWithPath: "/editing-state/\(UUID().uuidString)")
        let container = try ModelContainer(for: Note.self, configurations: ArchiveConfiguration(url: url, log: log))
        let context = ModelContext(container)
        let other = ModelContext(container)
        other.author = "sync"
        context.editingState = other.editingState
        #expect(context.author == "sync")
        #expect(context.editingState.id == other.editingState.id)
        context.insert(Note(text: "synced"))
        try context.save()
        #expect(log.events.dropFirst() == ["initialize \(other.editingState.id)", "save \(other.editingState.id) sync"])
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.isEmpty, "a custom store keeps no history here: \(history)")
    }
}
