import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import Testing

/// An index entry of PostgreSQL holds at most 2,704 bytes (after compression). A longer value of a
/// property `#Unique` or `#Index` names is refused by the save with an error naming the model and
/// the property; nothing is written, and the context keeps its changes.
@Suite struct PostgresIndexEntryTests {
    /// Text that does not compress: `count` letters from a fixed sequence.
    static func incompressible(_ count: Int, seed: UInt64) -> String {
        var state = seed
        return String((0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Character(UnicodeScalar(UInt8(97 + (state >> 33) % 26)))
        })
    }

    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage), arguments: [3_000, 20_000])
    func aValueLongerThanAnIndexEntryIsRefusedNamingTheProperty(_ length: Int) throws {
        let configuration = try PostgresServer.freshConfiguration("entry")
        let context = ModelContext(try ModelContainer(for: Ticket.self, configurations: configuration))
        context.insert(Ticket(code: "short", title: "kept"))
        try context.save()

        context.insert(Ticket(code: "other", title: Self.incompressible(length, seed: 7)))
        let error = #expect(throws: SwiftDataError.modelValidationFailure) { try context.save() }
        #expect(error?.reason?.contains("Ticket.title (\(length) bytes)") == true, "\(String(describing: error))")
        #expect(context.hasChanges, "the context keeps its changes")
        let stored = try ModelContext(try ModelContainer(for: Ticket.self, configurations: configuration)).fetch(FetchDescriptor<Ticket>())
        #expect(stored.map(\.code) == ["short"], "nothing was written")

        // The unique property too, and an update as well as an insert.
        context.rollback()
        let kept = try #require(try context.fetch(FetchDescriptor<Ticket>()).first)
        kept.code = Self.incompressible(length, seed: 11)
        let update = #expect(throws: SwiftDataError.modelValidationFailure) { try context.save() }
        #expect(update?.reason?.contains("Ticket.code (\(length) bytes)") == true, "\(String(describing: update))")
    }

    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func aLongValueThatCompressesIsKept() throws {
        let configuration = try PostgresServer.freshConfiguration("entryzip")
        let context = ModelContext(try ModelContainer(for: Ticket.self, configurations: configuration))
        let title = String(repeating: "the same words again ", count: 1_000)
        context.insert(Ticket(code: "long", title: title))
        try context.save()
        let stored = try ModelContext(try ModelContainer(for: Ticket.self, configurations: configuration)).fetch(FetchDescriptor<Ticket>())
        #expect(stored.first?.title == title)
    }

    /// Values of one index that are each short enough but together too long are named together.
    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func valuesOfOneIndexTooLongTogetherAreNamedTogether() throws {
        let configuration = try PostgresServer.freshConfiguration("entrypair")
        let context = ModelContext(try ModelContainer(for: Pair.self, configurations: configuration))
        context.insert(Pair(left: Self.incompressible(1_600, seed: 3), right: Self.incompressible(1_600, seed: 5)))
        let error = #expect(throws: SwiftDataError.modelValidationFailure) { try context.save() }
        #expect(error?.reason?.contains("Pair.left + Pair.right (3200 bytes)") == true, "\(String(describing: error))")
    }
}

@Model final class Pair {
    #Index<Pair>([\.left, \.right])
    var left: String
    var right: String
    init(left: String, right: String) {
        self.left = left
        self.right = right
    }
}
