import Foundation
import Testing
@testable import OpenSwiftData

/// `aggregates(_:in:)` (an addition of OpenSwiftData) gives, in one pass, what each aggregate's own
/// method gives over the same descriptor: every descriptor of ``AggregateTests``, stored and
/// unsaved models, columns read together and models read when a property is not a column.
struct CombinedAggregateTests {
    let store = TemporaryStore()

    @Test(arguments: Backend.allCases, TestCounts.seeds(quick: 1, full: 3))
    func combinedAggregatesEqualEachAggregateAlone(_ backend: Backend, seed: UInt64) throws {
        try AggregateTests.checkInEveryState(store, backend, seed: seed, Self.check)
    }

    static func check(_ context: ModelContext, _ state: String) throws {
        for (name, descriptor) in AggregateTests.descriptors {
            let where_ = "\(state), \(name)"
            // Stored columns only, one of them twice (read once), of every kind of aggregate.
            let stored = try context.aggregates(
                .sum(\SensorReading.count), .maximum(\.small), .sum(\.level), .sum(\.ratio), .sum(\.amount),
                .average(\.count), .average(\.level), .average(\.amount), .average(\.optionalCount), .average(\.optionalLevel),
                .minimum(\.count), .maximum(\.count), .minimum(\.station), .maximum(\.station),
                .minimum(\.takenAt), .maximum(\.level), .sum(\.optionalCount), .minimum(\.optionalLevel),
                in: descriptor)
            #expect(stored.0 == (try context.sum(of: \.count, in: descriptor)), "\(where_)")
            #expect(stored.1 == (try context.maximum(of: \.small, in: descriptor)), "\(where_)")
            #expect(AggregateTests.same(stored.2, try context.sum(of: \.level, in: descriptor)), "\(where_)")
            #expect(AggregateTests.same(stored.3, try context.sum(of: \.ratio, in: descriptor)), "\(where_)")
            #expect(AggregateTests.same(stored.4, try context.sum(of: \.amount, in: descriptor)), "\(where_)")
            #expect(stored.5 == (try context.average(of: \.count, in: descriptor)), "\(where_)")
            #expect(AggregateTests.same(stored.6, try context.average(of: \.level, in: descriptor)), "\(where_)")
            #expect(AggregateTests.same(stored.7, try context.average(of: \.amount, in: descriptor)), "\(where_)")
            #expect(stored.8 == (try context.average(of: \.optionalCount, in: descriptor)), "\(where_)")
            #expect(AggregateTests.same(stored.9, try context.average(of: \.optionalLevel, in: descriptor)), "\(where_)")
            #expect(stored.10 == (try context.minimum(of: \.count, in: descriptor)), "\(where_)")
            #expect(stored.11 == (try context.maximum(of: \.count, in: descriptor)), "\(where_)")
            #expect(stored.12?.unicodeScalars.elementsEqual((try context.minimum(of: \.station, in: descriptor) ?? "").unicodeScalars) ?? true, "\(where_)")
            #expect(stored.13 == (try context.maximum(of: \.station, in: descriptor)), "\(where_)")
            #expect(stored.14 == (try context.minimum(of: \.takenAt, in: descriptor)), "\(where_)")
            #expect(AggregateTests.same(stored.15, try context.maximum(of: \.level, in: descriptor)), "\(where_)")
            #expect(stored.16 == (try context.sum(of: \.optionalCount, in: descriptor)), "\(where_)")
            #expect(AggregateTests.same(stored.17, try context.minimum(of: \.optionalLevel, in: descriptor)), "\(where_)")

            // Aggregates every store that computes aggregates computes (of numbers without NaN, which
            // can leave a sum or an extreme to the context), asked of it in one statement where it
            // evaluates the descriptor.
            let inStore = try context.aggregates(
                .sum(\SensorReading.count), .average(\.count), .minimum(\.takenAt), .maximum(\.takenAt), .sum(\.optionalCount),
                .average(\.optionalCount), .minimum(\.count), .maximum(\.count), .maximum(\.small), .minimum(\.big),
                in: descriptor)
            #expect(inStore.0 == (try context.sum(of: \.count, in: descriptor)), "\(where_)")
            #expect(inStore.1 == (try context.average(of: \.count, in: descriptor)), "\(where_)")
            #expect(inStore.2 == (try context.minimum(of: \.takenAt, in: descriptor)), "\(where_)")
            #expect(inStore.3 == (try context.maximum(of: \.takenAt, in: descriptor)), "\(where_)")
            #expect(inStore.4 == (try context.sum(of: \.optionalCount, in: descriptor)), "\(where_)")
            #expect(inStore.5 == (try context.average(of: \.optionalCount, in: descriptor)), "\(where_)")
            #expect(inStore.6 == (try context.minimum(of: \.count, in: descriptor)), "\(where_)")
            #expect(inStore.7 == (try context.maximum(of: \.count, in: descriptor)), "\(where_)")
            #expect(inStore.8 == (try context.maximum(of: \.small, in: descriptor)), "\(where_)")
            #expect(inStore.9 == (try context.minimum(of: \.big, in: descriptor)), "\(where_)")

            // Properties that are no column (ephemeral, computed) are read from models.
            let fromModels = try context.aggregates(.sum(\SensorReading.scratch), .maximum(\.doubledCount), .sum(\.count), in: descriptor)
            #expect(fromModels.0 == (try context.sum(of: \.scratch, in: descriptor)), "\(where_)")
            #expect(fromModels.1 == (try context.maximum(of: \.doubledCount, in: descriptor)), "\(where_)")
            #expect(fromModels.2 == stored.0, "\(where_)")

            // A sum of integers that does not fit fails the whole call as the sum alone fails.
            let bigs = Result { try context.sum(of: \.big, in: descriptor) }
            let combined = Result { try context.aggregates(.maximum(\SensorReading.big), .sum(\.big), in: descriptor) }
            switch (bigs, combined) {
            case (.success(let alone), .success(let together)):
                #expect(together.1 == alone, "\(where_)")
                #expect(together.0 == (try context.maximum(of: \.big, in: descriptor)), "\(where_)")
            case (.failure(let alone), .failure(let together)):
                #expect((together as? SwiftDataError) == .arithmeticOverflow && (alone as? SwiftDataError) == .arithmeticOverflow, "\(where_)")
                #expect("\(together)".contains("SensorReading.big"), "\(where_)")
            default:
                Issue.record("\(where_): alone \(bigs), together \(combined)")
            }
        }
    }

    /// One aggregate takes its own method's path; the results come in the order asked.
    @Test func oneAggregateAndTheOrderOfResults() throws {
        let context = ModelContext(try store.container(IndexedScore.self))
        for (group, score) in [(1, 10), (2, -4), (1, 7), (3, 0)] { context.insert(IndexedScore(group: group, score: score)) }
        try context.save()
        let reopened = ModelContext(try store.container(IndexedScore.self))
        let total: Int = try reopened.aggregates(.sum(\IndexedScore.score))
        #expect(total == 13)
        let (highest, lowest, average, groups) = try reopened.aggregates(
            .maximum(\IndexedScore.score), .minimum(\.score), .average(\.score), .sum(\.group))
        #expect(highest == 10 && lowest == -4 && average == 3.25 && groups == 7)
        let firstGroup = FetchDescriptor<IndexedScore>(predicate: #Predicate { $0.group == 1 })
        let (sum, count) = try reopened.aggregates(.sum(\IndexedScore.score), .average(\.score), in: firstGroup)
        #expect(sum == 17 && count == 8.5)
        let none = FetchDescriptor<IndexedScore>(predicate: #Predicate { $0.group > 9 })
        let empty = try reopened.aggregates(.sum(\IndexedScore.score), .average(\.score), .minimum(\.group), in: none)
        #expect(empty.0 == 0 && empty.1 == nil && empty.2 == nil)
    }

    /// A class with subclasses (whose models the store holds in several tables) and a key path
    /// through a relationship give what each aggregate alone gives.
    @Test func aClassHierarchyAndARelationshipAggregateTogether() throws {
        let context = try AggregateTests.reopenedMediaInAnAlbum(in: store)
        let (ratings, lastTitle, album, average) = try context.aggregates(
            .sum(\MediaItem.rating), .maximum(\MediaItem.title), .minimum(\MediaItem.album?.name), .average(\MediaItem.rating))
        #expect(ratings == 8 && lastTitle == "waves" && album == "Summer" && average == 2)
        let (pictures, sharpest) = try context.aggregates(.sum(\Picture.rating), .maximum(\.resolution))
        #expect(pictures == 6 && sharpest == 4_000)
        let inAlbum = FetchDescriptor<MediaItem>(predicate: #Predicate { $0.album?.name == "Summer" })
        let (albumRatings, albumTitle) = try context.aggregates(.sum(\MediaItem.rating), .minimum(\.title), in: inAlbum)
        #expect(albumRatings == 5 && albumTitle == "sea")
    }

    /// A stored value the property's type cannot read fails the call with an error naming the
    /// model and property, as the aggregate alone does.
    @Test func aValueThatIsNoNumberFailsTheCallNamingTheProperty() throws {
        let reopened = try AggregateTests.readingsWithTextForALevel(in: store)
        #expect {
            try reopened.aggregates(.sum(\SensorReading.count), .maximum(\.level))
        } throws: { error in
            (error as? SwiftDataError) == .modelValidationFailure && "\(error)".contains("SensorReading.level") && "\(error)".contains("high")
        }
        #expect(try reopened.aggregates(.sum(\SensorReading.count), .minimum(\.takenAt)).0 == (try reopened.sum(of: \SensorReading.count)))
    }
}
