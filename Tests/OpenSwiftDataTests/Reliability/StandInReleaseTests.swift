import Foundation
import Testing
@testable import OpenSwiftData

/// Related models refer to each other, and models that outlive their context load through a
/// stand-in context; once nothing holds them, they (and the stand-in) are released, so a server
/// that loads relationships, or hands models past the end of a request's context, does not grow.
@Suite struct StandInReleaseTests {
    /// One request: a context fetches the author, and the context ends with the request.
    func request(_ container: ModelContainer) throws -> LiveAuthor? {
        try ModelContext(container).fetch(FetchDescriptor<LiveAuthor>()).first
    }

    /// A container on `store` holding one author and her books.
    func authorWithBooks(_ titles: [String], in store: TemporaryStore) throws -> ModelContainer {
        let container = try store.container(LiveBook.self, LiveAuthor.self)
        let setup = ModelContext(container)
        let author = LiveAuthor("Le Guin")
        setup.insert(author)
        for title in titles {
            let book = LiveBook(title)
            setup.insert(book)
            book.author = author
        }
        try setup.save()
        return container
    }

    @Test func modelsThatOutliveTheirContextAreReleasedWithTheirStandIn() throws {
        let store = TemporaryStore()
        let container = try authorWithBooks(["The Dispossessed", "The Lathe of Heaven", "Earthsea"], in: store)

        weak var firstAuthor: LiveAuthor?
        weak var firstBook: LiveBook?
        weak var lastAuthor: LiveAuthor?
        for number in 0..<TestCounts.count(quick: 1_500, full: 10_000) {
            let author = try #require(try request(container))
            // The context is gone: the books load through the stand-in.
            let titles = author.books.map(\.title).sorted()
            if titles != ["Earthsea", "The Dispossessed", "The Lathe of Heaven"] {
                Issue.record("request \(number): \(titles)")
                return
            }
            if number == 0 {
                firstAuthor = author
                firstBook = author.books.first
            }
            lastAuthor = author
        }
        #expect(firstAuthor == nil, "an orphan nothing holds is released")
        #expect(firstBook == nil, "and so is what its stand-in loaded")
        #expect(lastAuthor == nil)
        // Resident memory, in a process of its own: 90% of the requests after a warm-up of 10%
        // (20,000 in all; 100,000 at full counts). A model kept per request, ~200 bytes and more,
        // would pass 4 MiB.
        let requests = TestCounts.count(quick: 20_000, full: 100_000)
        if let growth = try residentGrowth(ofProbe: "requests", rounds: requests), !isRunningUnderThreadSanitizer {
            #expect(growth < 4 << 20, "\(requests) requests leave memory flat (\(growth / 1024) KiB more)")
        }
    }

    @Test func modelsRelatedToEachOtherAreReleasedWithTheirContext() throws {
        let store = TemporaryStore()
        let container = try authorWithBooks(["Earthsea"], in: store)

        weak var released: LiveAuthor?
        weak var releasedBook: LiveBook?
        weak var releasedContext: ModelContext?
        var kept: LiveBook?
        do {
            let context = ModelContext(container)
            releasedContext = context
            let author = try #require(try context.fetch(FetchDescriptor<LiveAuthor>()).first)
            released = author
            releasedBook = author.books.first
            kept = try context.fetch(FetchDescriptor<LiveBook>()).first
        }
        #expect(releasedContext == nil)
        #expect(kept?.author?.name == "Le Guin", "a model still in use reloads its relationships")
        kept = nil
        #expect(released == nil, "an author and its books, each referring to the other, are released")
        #expect(releasedBook == nil)
    }
}
