import Foundation
import Testing
@testable import OpenSwiftData

/// Reads that fail where SwiftData's API cannot throw (a property getter, a batched collection's
/// subscript) never stop the process: the value reads as a placeholder or loads later, the failure
/// is reported through `OpenSwiftDataDiagnostics`, and the context's next fetch or save throws it.
@Suite(.serialized) struct NoTrapTests {
    struct Unreadable: Error, Equatable {}

    /// Collects the reports that mention `subject` while `body` runs.
    func reports(mentioning subject: String, _ body: () throws -> Void) rethrows -> [String] {
        let collected = LockedValue<[String]>([])
        let previous = OpenSwiftDataDiagnostics.handler
        OpenSwiftDataDiagnostics.handler = { message in
            if message.contains(subject) { collected.withValue { $0.append(message) } }
        }
        defer { OpenSwiftDataDiagnostics.handler = previous }
        try body()
        return collected.load()
    }

    @Test func aPropertyOfARowDeletedElsewhereReadsAsAPlaceholder() throws {
        let store = TemporaryStore()
        let container = try store.container(LiveBook.self, LiveAuthor.self)
        let setup = ModelContext(container)
        setup.insert(LiveBook("Dune", genre: "SF", rating: 5))
        try setup.save()

        let context = ModelContext(container)
        var titlesOnly = FetchDescriptor<LiveBook>()
        titlesOnly.propertiesToFetch = [\.title]
        let book = try #require(try context.fetch(titlesOnly).first)
        let other = ModelContext(container)
        try other.delete(model: LiveBook.self)
        try other.save()

        var genre: String?
        let reported = reports(mentioning: "LiveBook.genre") { genre = book.genre }
        #expect(genre == "", "an unloadable String reads as empty, where SwiftData would stop the process")
        #expect(book.isDeleted)
        #expect(reported.count == 1, "the failure is reported: \(reported)")
        #expect(book.title == "Dune", "what was loaded stays")
        #expect(try context.fetch(FetchDescriptor<LiveBook>()).isEmpty, "a deletion is no error: the context's work goes on")
    }

    @Test func aBatchThatFailsToLoadGivesPlaceholdersAndTheErrorAtTheNextFetch() throws {
        let store = TemporaryStore()
        let container = try store.container(LiveBook.self, LiveAuthor.self)
        let setup = ModelContext(container)
        for number in 0..<10 { setup.insert(LiveBook("book \(number)")) }
        try setup.save()

        let context = ModelContext(container)
        let books = try context.fetch(FetchDescriptor<LiveBook>(sortBy: [SortDescriptor(\.title)]), batchSize: 4)
        // Another connection takes the table away after the keys were read: every read fails.
        let other = try SQLiteConnection(path: store.url.path, readOnly: false, create: false)
        try other.execute(#"ALTER TABLE "LiveBook" RENAME TO "Hidden""#)
        var title: String?
        let reported = reports(mentioning: "LiveBook") { title = books[0].title }
        #expect(title == "", "the batch's models are there; what cannot load reads as a placeholder")
        #expect(reported.contains { $0.contains("batch of LiveBook") }, "the failed batch is reported: \(reported)")
        #expect(!books[0].isDeleted, "a failed read is not a deletion")
        try other.execute(#"ALTER TABLE "Hidden" RENAME TO "LiveBook""#)
        #expect(throws: SwiftDataError.self) { try context.fetch(FetchDescriptor<LiveBook>()) }
        #expect(try context.fetch(FetchDescriptor<LiveBook>(sortBy: [SortDescriptor(\.title)])).map(\.title) == (0..<10).map { "book \($0)" })
        #expect(books[5].title == "book 5", "later batches load")
    }
}

/// A store file damaged while a process uses it (an I/O error, a bad disk, another program)
/// gives thrown errors, never a trap.
@Suite struct DamagedFileTests {
    @Test func aFileDamagedMidRunGivesErrorsNotTraps() throws {
        let store = TemporaryStore()
        let container = try store.container(LiveBook.self, LiveAuthor.self)
        let context = ModelContext(container)
        for number in 0..<2_000 { context.insert(LiveBook("book \(number)", genre: String(repeating: "g", count: 200))) }
        try context.save()
        let connection = try SQLiteConnection(path: store.url.path, readOnly: false, create: false)
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")

        // Every page after the first few is overwritten with garbage, under the open store.
        let handle = try FileHandle(forWritingTo: store.url)
        try handle.seek(toOffset: 4096 * 2)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 4096 * 64))
        try handle.close()

        let reopened = #expect(throws: SwiftDataError.self, "opening the damaged file is a clear error") {
            try store.container(LiveBook.self, LiveAuthor.self)
        }
        #expect(reopened == .storeIsCorrupt)
        // The container opened before the damage keeps going, and reports what it finds.
        let reader = ModelContext(container)
        var outcomes: [String] = []
        do {
            let books = try reader.fetch(FetchDescriptor<LiveBook>(sortBy: [SortDescriptor(\.title)]))
            outcomes.append("fetched \(books.count)")
        } catch {
            outcomes.append("fetch threw \(type(of: error))")
            #expect(error is SwiftDataError, "\(error)")
        }
        let writer = ModelContext(container)
        writer.insert(LiveBook("after"))
        do {
            try writer.save()
            outcomes.append("saved")
        } catch {
            outcomes.append("save threw")
            #expect(error is SwiftDataError, "\(error)")
            #expect(writer.hasChanges, "a failed save keeps the context's changes")
        }
        #expect(outcomes.contains { $0.contains("threw") }, "the damage was noticed: \(outcomes)")
    }
}
