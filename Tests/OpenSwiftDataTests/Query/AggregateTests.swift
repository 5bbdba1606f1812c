import Foundation
import Testing
@testable import OpenSwiftData

/// A sensor reading with a property of every kind an aggregate takes.
@Model final class SensorReading {
    var station: String
    var count: Int
    var small: Int8
    var big: UInt64
    var level: Double
    var ratio: Float
    var amount: Decimal
    var takenAt: Date
    var optionalCount: Int?
    var optionalLevel: Double?
    @Attribute(.ephemeral) var scratch: Int = 0
    /// A computed property: aggregates read it from models.
    var doubledCount: Int { count * 2 }

    init(station: String, count: Int, small: Int8, big: UInt64, level: Double, ratio: Float, amount: Decimal,
         takenAt: Date, optionalCount: Int?, optionalLevel: Double?) {
        self.station = station
        self.count = count
        self.small = small
        self.big = big
        self.level = level
        self.ratio = ratio
        self.amount = amount
        self.takenAt = takenAt
        self.optionalCount = optionalCount
        self.optionalLevel = optionalLevel
    }

    static func random(using random: inout SeededGenerator) -> SensorReading {
        func oneIn(_ n: Int) -> Bool { Int.random(in: 0..<n, using: &random) == 0 }
        let level: Double = oneIn(12) ? .nan : oneIn(20) ? -.infinity : Double.random(in: -1...1, using: &random)
        let amount: Decimal = oneIn(16) ? .nan : Decimal(Int.random(in: -10_000...10_000, using: &random)) / 100
        return SensorReading(
            station: ["a", "b", "é", "e\u{301}", "c"].randomElement(using: &random) ?? "a",
            count: Int.random(in: -1_000...1_000, using: &random),
            small: Int8.random(in: -40...40, using: &random),
            big: oneIn(8) ? UInt64.max - UInt64.random(in: 0...10, using: &random) : UInt64.random(in: 0...1_000, using: &random),
            level: level, ratio: Float.random(in: -1...1, using: &random), amount: amount,
            takenAt: Date(timeIntervalSinceReferenceDate: Double.random(in: -1e9...1e9, using: &random)),
            optionalCount: oneIn(4) ? nil : Int.random(in: -50...50, using: &random),
            optionalLevel: oneIn(4) ? nil : oneIn(10) ? .nan : Double.random(in: 0...1, using: &random))
    }
}

/// A score with an index, so that a statement reading only the score can take another path than a
/// fetch does.
@Model final class IndexedScore {
    #Index<IndexedScore>([\.score])
    var group: Int
    var score: Int

    init(group: Int, score: Int) {
        self.group = group
        self.score = score
    }
}

/// `sum`, `minimum` and `maximum` (additions of OpenSwiftData) equal the same reduction of the
/// values `fetch` returns, for every descriptor: predicates in SQL and in Swift, pages, unsaved
/// changes included or not, ephemeral and computed properties, NaN, and integer overflow.
struct AggregateTests {
    let store = TemporaryStore()

    /// Descriptors over the readings: whole, filtered (in SQL, and in Swift), paged, and without
    /// pending changes.
    static var descriptors: [(String, FetchDescriptor<SensorReading>)] {
        var paged = FetchDescriptor<SensorReading>(sortBy: [SortDescriptor(\.count), SortDescriptor(\.takenAt)])
        paged.fetchOffset = 5
        paged.fetchLimit = 17
        var saved = FetchDescriptor<SensorReading>(predicate: #Predicate { $0.count > -500 })
        saved.includePendingChanges = false
        return [
            ("all", FetchDescriptor()),
            ("count > 0", FetchDescriptor(predicate: #Predicate { $0.count > 0 })),
            ("station == é", FetchDescriptor(predicate: #Predicate { $0.station == "é" })),
            ("level > 0.25", FetchDescriptor(predicate: #Predicate { $0.level > 0.25 })),
            ("optionalCount == nil", FetchDescriptor(predicate: #Predicate { $0.optionalCount == nil })),
            ("in Swift", FetchDescriptor(predicate: #Predicate { $0.station.localizedStandardContains("E") })),
            ("paged", paged),
            ("sorted", FetchDescriptor(sortBy: [SortDescriptor(\.count, order: .reverse), SortDescriptor(\.takenAt)])),
            ("finite, sorted", FetchDescriptor(predicate: #Predicate { $0.level > -2 }, sortBy: [SortDescriptor(\.takenAt)])),
            ("without pending changes", saved),
            ("none", FetchDescriptor(predicate: #Predicate { $0.count > 5_000 })),
        ]
    }

    @Test(arguments: Backend.allCases, TestCounts.seeds(quick: 1, full: 3))
    func aggregatesEqualTheReductionOfTheFetchedValues(_ backend: Backend, seed: UInt64) throws {
        try Self.checkInEveryState(store, backend, seed: seed, Self.checkEveryAggregate)
    }

    /// Runs `check` on random readings: reopened (the stores' columns are read directly where they
    /// can be), saved, and with unsaved inserts, changes (ephemeral ones too) and deletions.
    static func checkInEveryState(
        _ store: TemporaryStore, _ backend: Backend, seed: UInt64, _ check: (ModelContext, String) throws -> Void
    ) throws {
        var random = SeededGenerator(seed: seed)
        let context = ModelContext(try store.container(SensorReading.self, backend: backend))
        for _ in 0..<60 { context.insert(SensorReading.random(using: &random)) }
        try context.save()
        try check(ModelContext(try store.container(SensorReading.self, backend: backend)), "reopened")
        try check(context, "saved")
        let readings = try context.fetch(FetchDescriptor<SensorReading>(sortBy: [SortDescriptor(\.count)]))
        for reading in readings.prefix(6) { context.delete(reading) }
        for reading in readings.suffix(8) {
            reading.count += 7
            reading.level = -reading.level
            reading.scratch = Int.random(in: 1...9, using: &random)
        }
        for _ in 0..<5 { context.insert(SensorReading.random(using: &random)) }
        try check(context, "unsaved")
    }

    /// Compares each aggregate of each property with the reduction of the fetched values.
    static func checkEveryAggregate(in context: ModelContext, _ state: String) throws {
        for (name, descriptor) in descriptors {
            let fetched = try context.fetch(descriptor)
            let where_ = "\(state), \(name)"
            try checkIntegers(\.count, fetched, context, descriptor, where_)
            try checkIntegers(\.small, fetched, context, descriptor, where_)
            try checkIntegers(\.big, fetched, context, descriptor, where_)
            try checkIntegers(\.scratch, fetched, context, descriptor, where_)
            try checkIntegers(\.doubledCount, fetched, context, descriptor, where_)
            try checkNumbers(\.level, fetched, context, descriptor, where_)
            try checkNumbers(\.ratio, fetched, context, descriptor, where_)
            try checkNumbers(\.amount, fetched, context, descriptor, where_)
            try checkExtremes(\.takenAt, fetched, context, descriptor, where_)
            try checkExtremes(\.station, fetched, context, descriptor, where_)
            try checkAverages(fetched, context, descriptor, where_)

            let optionalCounts = fetched.compactMap(\.optionalCount)
            #expect(try context.sum(of: \.optionalCount, in: descriptor) == optionalCounts.reduce(0, +), "\(where_)")
            #expect(try context.minimum(of: \.optionalCount, in: descriptor) == optionalCounts.min(), "\(where_)")
            #expect(try context.maximum(of: \.optionalCount, in: descriptor) == optionalCounts.max(), "\(where_)")
            let optionalLevels = fetched.compactMap(\.optionalLevel)
            #expect(same(try context.sum(of: \.optionalLevel, in: descriptor), optionalLevels.reduce(0, +)), "\(where_)")
            #expect(same(try context.minimum(of: \.optionalLevel, in: descriptor), smallest(optionalLevels)), "\(where_)")
            #expect(same(try context.maximum(of: \.optionalLevel, in: descriptor), largest(optionalLevels)), "\(where_)")
        }
    }

    /// Exact sums (the error only when the true sum does not fit), minimum and maximum.
    static func checkIntegers<Value: FixedWidthInteger & _PersistentScalar>(
        _ keyPath: KeyPath<SensorReading, Value>, _ fetched: [SensorReading], _ context: ModelContext,
        _ descriptor: FetchDescriptor<SensorReading>, _ where_: String
    ) throws {
        // `Decimal` holds 38 digits: the true sum of these values, exactly.
        let exact = fetched.reduce(Decimal(0)) { $0 + (Decimal(string: "\($1[keyPath: keyPath])") ?? .nan) }
        if let expected = Value("\(exact)") {
            #expect(try context.sum(of: keyPath, in: descriptor) == expected, "\(where_)")
        } else {
            #expect(throws: SwiftDataError.arithmeticOverflow, "\(where_)") { try context.sum(of: keyPath, in: descriptor) }
        }
        try checkExtremes(keyPath, fetched, context, descriptor, where_)
    }

    /// Sums (floating point bit for bit: no index offers the store another order here), minimum
    /// and maximum.
    static func checkNumbers<Value: AdditiveArithmetic & Comparable & _PersistentScalar>(
        _ keyPath: KeyPath<SensorReading, Value>, _ fetched: [SensorReading], _ context: ModelContext,
        _ descriptor: FetchDescriptor<SensorReading>, _ where_: String
    ) throws {
        let values = fetched.map { $0[keyPath: keyPath] }
        let summed = try context.sum(of: keyPath, in: descriptor); let reduced = values.reduce(.zero, +)
        #expect(same(summed, reduced), "\(where_): \(summed) vs \(reduced), \(values.count) values")
        try checkExtremes(keyPath, fetched, context, descriptor, where_)
    }

    /// Averages: of integers from their exact sum (to a `Double`'s rounding), of floating-point
    /// numbers and `Decimal`s as the sum of the fetched values over their number, bit for bit;
    /// `nil` values left out; `nil` when there is no value.
    static func checkAverages(
        _ fetched: [SensorReading], _ context: ModelContext, _ descriptor: FetchDescriptor<SensorReading>, _ where_: String
    ) throws {
        func exactAverage(_ values: [String]) -> Double? {
            guard !values.isEmpty else { return nil }
            let total = values.reduce(Decimal(0)) { $0 + (Decimal(string: $1) ?? .nan) }
            return NSDecimalNumber(decimal: total / Decimal(values.count)).doubleValue
        }
        func close(_ lhs: Double?, _ rhs: Double?) -> Bool {
            guard let lhs, let rhs else { return lhs == nil && rhs == nil }
            return abs(lhs - rhs) <= 1e-9 * max(1, abs(rhs))
        }
        let counts = try context.average(of: \.count, in: descriptor)
        #expect(close(counts, exactAverage(fetched.map { "\($0.count)" })), "\(where_): average of count")
        let bigs = try context.average(of: \.big, in: descriptor)
        #expect(close(bigs, exactAverage(fetched.map { "\($0.big)" })), "\(where_): average of big")
        let optionalCounts = try context.average(of: \.optionalCount, in: descriptor)
        #expect(close(optionalCounts, exactAverage(fetched.compactMap { $0.optionalCount.map { "\($0)" } })), "\(where_): average of optionalCount")
        func quotient<Value: FloatingPoint>(_ values: [Value]) -> Value? {
            values.isEmpty ? nil : values.reduce(.zero, +) / Value(values.count)
        }
        #expect(same(try context.average(of: \.level, in: descriptor), quotient(fetched.map(\.level))), "\(where_): average of level")
        #expect(same(try context.average(of: \.ratio, in: descriptor), quotient(fetched.map(\.ratio))), "\(where_): average of ratio")
        #expect(same(try context.average(of: \.optionalLevel, in: descriptor), quotient(fetched.compactMap(\.optionalLevel))),
                "\(where_): average of optionalLevel")
        let amounts = fetched.map(\.amount)
        let amount = amounts.isEmpty ? nil : amounts.reduce(Decimal(0), +) / Decimal(amounts.count)
        #expect(same(try context.average(of: \.amount, in: descriptor), amount), "\(where_): average of amount")
    }

    static func checkExtremes<Value: Comparable & _PersistentScalar>(
        _ keyPath: KeyPath<SensorReading, Value>, _ fetched: [SensorReading], _ context: ModelContext,
        _ descriptor: FetchDescriptor<SensorReading>, _ where_: String
    ) throws {
        let values = fetched.map { $0[keyPath: keyPath] }
        let (minimum, maximum) = (try context.minimum(of: keyPath, in: descriptor), try context.maximum(of: keyPath, in: descriptor))
        #expect(same(minimum, smallest(values)), "\(where_): minimum of \(keyPath)")
        #expect(same(maximum, largest(values)), "\(where_): maximum of \(keyPath)")
        // Of equal text ("é" precomposed and decomposed), the first: the stored value, scalar for scalar.
        if let minimum = minimum as? String, let maximum = maximum as? String {
            #expect(minimum.unicodeScalars.elementsEqual("\(smallest(values).map { "\($0)" } ?? "")".unicodeScalars), "\(where_): minimum of \(keyPath)")
            #expect(maximum.unicodeScalars.elementsEqual("\(largest(values).map { "\($0)" } ?? "")".unicodeScalars), "\(where_): maximum of \(keyPath)")
        }
    }

    /// The first smallest value, NaN only when every value is NaN.
    static func smallest<Value: Comparable>(_ values: [Value]) -> Value? {
        values.filter { $0 == $0 }.min() ?? values.first
    }

    /// The first largest value, NaN only when every value is NaN.
    static func largest<Value: Comparable>(_ values: [Value]) -> Value? {
        let ordered = values.filter { $0 == $0 }
        guard var result = ordered.first else { return values.first }
        for value in ordered where result < value { result = value }
        return result
    }

    /// Equal, or both NaN.
    static func same<Value: Equatable>(_ lhs: Value?, _ rhs: Value?) -> Bool {
        guard let lhs, let rhs else { return lhs == nil && rhs == nil }
        return lhs == rhs || (lhs != lhs && rhs != rhs)
    }

    /// A floating-point sum over a sorted descriptor adds in the sort's order, as a reduction of
    /// the fetch does, bit for bit.
    @Test(arguments: Backend.allCases)
    func floatingPointSumsAddInTheOrderOfASortedFetch(_ backend: Backend) throws {
        var random = SeededGenerator(seed: 3)
        do {
            let context = ModelContext(try store.container(SensorReading.self, backend: backend))
            for _ in 0..<80 {
                let reading = SensorReading.random(using: &random)
                reading.level = Double.random(in: -1...1, using: &random)
                context.insert(reading)
            }
            try context.save()
        }
        let context = ModelContext(try store.container(SensorReading.self, backend: backend))
        for order in [SortOrder.forward, .reverse] {
            let sorted = FetchDescriptor<SensorReading>(sortBy: [SortDescriptor(\.takenAt, order: order)])
            let expected = try context.fetch(sorted).map(\.level).reduce(0, +)
            #expect(try context.sum(of: \SensorReading.level, in: sorted).bitPattern == expected.bitPattern)
        }
    }

    /// Integers add exactly: a partial sum beyond the type's range is no error when the sum fits,
    /// and a sum beyond 64 bits (which a store's own sum cannot give) is the overflow error.
    @Test(arguments: Backend.allCases)
    func integerSumsAreExactWhateverThePartialSums(_ backend: Backend) throws {
        let context = ModelContext(try store.container(SensorReading.self, backend: backend))
        var random = SeededGenerator(seed: 4)
        for (small, count) in [(Int8(100), Int.max), (100, Int.max), (-100, Int.min + 1), (-90, Int.min + 1)] {
            let reading = SensorReading.random(using: &random)
            (reading.small, reading.count) = (small, count)
            context.insert(reading)
        }
        try context.save()
        let reopened = ModelContext(try store.container(SensorReading.self, backend: backend))
        #expect(try reopened.sum(of: \SensorReading.small) == 10)
        #expect(try reopened.sum(of: \SensorReading.count) == 0)
        #expect(try context.sum(of: \SensorReading.small) == 10)
        let positive = FetchDescriptor<SensorReading>(predicate: #Predicate { $0.count > 0 })
        #expect(throws: SwiftDataError.arithmeticOverflow) { try reopened.sum(of: \.count, in: positive) }
        #expect(throws: SwiftDataError.arithmeticOverflow) { try reopened.sum(of: \.small, in: positive) }
    }

    /// A class with subclasses aggregates over every table of its hierarchy, a subclass over its
    /// own; a key path through a relationship is read from the models.
    @Test func aggregatesSpanAClassHierarchyAndFollowRelationships() throws {
        let reopened = try Self.reopenedMediaInAnAlbum(in: store)
        #expect(try reopened.sum(of: \MediaItem.rating) == 8)
        #expect(try reopened.maximum(of: \MediaItem.title) == "waves")
        #expect(try reopened.sum(of: \Picture.rating) == 6)
        #expect(try reopened.minimum(of: \Picture.resolution) == 1_080)
        #expect(try reopened.sum(of: \Clip.footage) == 12.5)
        let inAlbum = FetchDescriptor<MediaItem>(predicate: #Predicate { $0.album?.name == "Summer" })
        #expect(try reopened.sum(of: \MediaItem.rating, in: inAlbum) == 5)
        #expect(try reopened.minimum(of: \MediaItem.album?.name) == "Summer")
    }

    /// A context on a reopened store of four media items of a class hierarchy (a plain item rated 2,
    /// pictures "sea" 1,080 rated 5 and "hill" 4,000 rated 1, a clip "waves" of 12.5), the
    /// second and the fourth in the album "Summer".
    static func reopenedMediaInAnAlbum(in store: TemporaryStore) throws -> ModelContext {
        let schema = Schema([Picture.self, Clip.self, Album.self])
        do {
            let context = ModelContext(try ModelContainer(for: schema, configurations: [store.configuration()]))
            let album = Album(name: "Summer")
            context.insert(album)
            let items = [MediaItem(title: "plain", rating: 2), Picture(title: "sea", resolution: 1_080, rating: 5),
                         Picture(title: "hill", resolution: 4_000, rating: 1), Clip(title: "waves", footage: 12.5)]
            for item in items { context.insert(item) }
            items[1].album = album
            items[3].album = album
            try context.save()
        }
        return ModelContext(try ModelContainer(for: schema, configurations: [store.configuration()]))
    }

    /// A page whose rows depend on the statement (no sort, or a sort with ties) aggregates the
    /// rows `fetch` gives.
    @Test(arguments: Backend.allCases)
    func pagesAggregateTheRowsFetchGives(_ backend: Backend) throws {
        var random = SeededGenerator(seed: 12)
        do {
            let context = ModelContext(try store.container(IndexedScore.self, backend: backend))
            for _ in 0..<200 { context.insert(IndexedScore(group: Int.random(in: 0..<3, using: &random), score: Int.random(in: -1_000...1_000, using: &random))) }
            try context.save()
        }
        let context = ModelContext(try store.container(IndexedScore.self, backend: backend))
        var unsorted = FetchDescriptor<IndexedScore>()
        unsorted.fetchLimit = 7
        var ties = FetchDescriptor<IndexedScore>(sortBy: [SortDescriptor(\.group)])
        ties.fetchOffset = 3
        ties.fetchLimit = 40
        for descriptor in [unsorted, ties] {
            let scores = try context.fetch(descriptor).map(\.score)
            #expect(try context.sum(of: \IndexedScore.score, in: descriptor) == scores.reduce(0, +))
            #expect(try context.minimum(of: \IndexedScore.score, in: descriptor) == scores.min())
            #expect(try context.maximum(of: \IndexedScore.score, in: descriptor) == scores.max())
        }
    }

    /// Text another program wrote into a `Double` column fails the sum and the extremes (in the
    /// store and in the context's own read alike) with an error naming the model and property.
    @Test func aValueThatIsNoNumberFailsTheSumNamingTheProperty() throws {
        let reopened = try AggregateTests.readingsWithTextForALevel(in: store)
        #expect {
            try reopened.sum(of: \SensorReading.level)
        } throws: { error in
            (error as? SwiftDataError) == .modelValidationFailure && "\(error)".contains("SensorReading.level") && "\(error)".contains("high")
        }
        // The extremes too: text orders after every number, but it is no Double.
        for extreme in [true, false] {
            #expect {
                try extreme ? reopened.maximum(of: \SensorReading.level) : reopened.minimum(of: \SensorReading.level)
            } throws: { error in
                (error as? SwiftDataError) == .modelValidationFailure && "\(error)".contains("SensorReading.level")
            }
        }
    }

    /// A context on three stored readings, one of whose `level` another program set to the text
    /// "high".
    static func readingsWithTextForALevel(in store: TemporaryStore) throws -> ModelContext {
        let context = ModelContext(try store.container(SensorReading.self, backend: .sqlite))
        var random = SeededGenerator(seed: 5)
        for _ in 0..<3 { context.insert(SensorReading.random(using: &random)) }
        try context.save()
        let connection = try SQLiteConnection(path: store.url.path, readOnly: false, create: false)
        try connection.execute("UPDATE SensorReading SET level = 'high' WHERE _pk = (SELECT min(_pk) FROM SensorReading)")
        return ModelContext(try store.container(SensorReading.self, backend: .sqlite))
    }

    /// The error names the model and property.
    @Test func anOverflowingSumNamesTheModelAndProperty() throws {
        let context = ModelContext(try store.container(SensorReading.self))
        var random = SeededGenerator(seed: 9)
        for _ in 0..<2 {
            let reading = SensorReading.random(using: &random)
            reading.big = .max
            context.insert(reading)
        }
        try context.save()
        #expect {
            try ModelContext(try store.container(SensorReading.self)).sum(of: \SensorReading.big)
        } throws: { error in
            "\(error)".contains("SensorReading.big") && (error as? SwiftDataError) == .arithmeticOverflow
        }
        var one = FetchDescriptor<SensorReading>()
        one.fetchLimit = 1
        #expect(try context.sum(of: \.big, in: one) == .max)
    }
}
