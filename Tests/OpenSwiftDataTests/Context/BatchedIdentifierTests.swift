import Foundation
import Testing
@testable import OpenSwiftData

/// `fetchIdentifiers(_:batchSize:)`, as SwiftData has it.
@Suite struct BatchedIdentifierTests {
    /// The batched identifiers are the same, in the same order, as the unbatched ones, and each
    /// resolves to its model in another context; a class hierarchy keeps each row's own class.
    @Test func batchedIdentifiersMatchAndResolve() throws {
        let store = TemporaryStore()
        let container = try store.container(Note.self)
        let context = ModelContext(container)
        for number in 0..<25 { context.insert(Note(text: String(format: "%02d", number))) }
        try context.save()
        let descriptor = FetchDescriptor<Note>(predicate: #Predicate { $0.text >= "10" }, sortBy: [SortDescriptor(\.text, order: .reverse)])
        let batched = try context.fetchIdentifiers(descriptor, batchSize: 4)
        #expect(Array(batched) == (try context.fetchIdentifiers(descriptor)))
        #expect(batched.count == 15)
        let other = ModelContext(container)
        #expect((other.model(for: batched[0]) as? Note)?.text == "24")

        let media = TemporaryStore()
        let mediaContainer = try ModelContainer(for: Picture.self, Clip.self, configurations: ModelConfiguration(url: media.url))
        let mediaContext = ModelContext(mediaContainer)
        mediaContext.insert(Picture(title: "p", resolution: 1))
        mediaContext.insert(Clip(title: "c", footage: 2))
        try mediaContext.save()
        let names = try mediaContext.fetchIdentifiers(FetchDescriptor<MediaItem>(sortBy: [SortDescriptor(\.title)]), batchSize: 1).map(\.entityName)
        #expect(names == ["Clip", "Picture"])
    }

    /// As with `fetch(_:batchSize:)`, unsaved changes of the model make it throw.
    @Test func pendingChangesThrow() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Note.self))
        context.insert(Note(text: "unsaved"))
        #expect(throws: SwiftDataError.includePendingChangesWithBatchSize) {
            try context.fetchIdentifiers(FetchDescriptor<Note>(), batchSize: 10)
        }
    }
}
