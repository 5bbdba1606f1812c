import Foundation
import Testing
@testable import OpenSwiftData

/// A shelf a stock item sits on: a relationship, which updates by predicate do not set.
@Model final class StockShelf {
    var label: String
    init(label: String) { self.label = label }
}

/// A stock item with a unique code, an ephemeral count and a relationship.
@Model final class StockItem {
    @Attribute(.unique) var sku: String
    var price: Int
    var restockedAt: Date
    var note: String?
    @Attribute(.ephemeral) var scanned: Int = 0
    var shelf: StockShelf?

    init(sku: String, price: Int) {
        self.sku = sku
        self.price = price
        restockedAt = Date(timeIntervalSinceReferenceDate: 0)
    }
}

/// `update(model:where:set:to:)` (an addition of OpenSwiftData): the stored models a predicate
/// selects get the value, in one transaction of their own, as if fetched, set and saved by a
/// context of their own; every context then sees the change as another context's save.
struct BatchUpdateTests {
    let store = TemporaryStore()
    let reference = TemporaryStore(name: "Reference.store")

    /// The predicates of the random updates: in SQL on both stores, and in Swift (computed
    /// property), with Unicode, NaN, `UInt64` and `Decimal` semantics.
    static let predicates: [(String, Predicate<SensorReading>?)] = [
        ("all", nil),
        ("count > 0", #Predicate { $0.count > 0 }),
        ("station == é", #Predicate { $0.station == "é" }),
        ("level > 0.25", #Predicate { $0.level > 0.25 }),
        ("level != level", #Predicate { $0.level != $0.level }),
        ("optionalCount == nil", #Predicate { $0.optionalCount == nil }),
        ("big > 1000", #Predicate { $0.big > 1_000 }),
        ("amount < 0", #Predicate { $0.amount < 0 }),
        ("doubledCount > 300 (Swift)", #Predicate { $0.doubledCount > 300 }),
        ("optionalLevel ?? 2 < 0.5", #Predicate { ($0.optionalLevel ?? 2) < 0.5 }),
    ]

    /// One random assignment: a property and a value, applied by `update` and by setting models.
    struct Assignment {
        let label: String
        let update: (ModelContext, Predicate<SensorReading>?) throws -> Int
        let set: (SensorReading) -> Void
        let propertyUpdate: PropertyUpdate<SensorReading>

        static func random(using random: inout SeededGenerator) -> Assignment {
            func make<Value>(_ keyPath: ReferenceWritableKeyPath<SensorReading, Value>, _ value: Value) -> Assignment {
                Assignment(label: "\(keyPath) = \(value)",
                           update: { try $0.update(model: SensorReading.self, where: $1, set: keyPath, to: value) },
                           set: { $0[keyPath: keyPath] = value }, propertyUpdate: .set(keyPath, to: value))
            }
            func oneIn(_ n: Int) -> Bool { Int.random(in: 0..<n, using: &random) == 0 }
            switch Int.random(in: 0..<10, using: &random) {
            case 0: return make(\.count, oneIn(4) ? Int.min / 4 : Int.random(in: -1_000...1_000, using: &random))
            case 1: return make(\.small, Int8.random(in: .min ... .max, using: &random))
            case 2: return make(\.big, oneIn(3) ? UInt64.max : UInt64.random(in: 0...2_000, using: &random))
            case 3: return make(\.level, oneIn(3) ? .nan : oneIn(3) ? .infinity : Double.random(in: -1...1, using: &random))
            case 4: return make(\.ratio, Float.random(in: -1...1, using: &random))
            case 5: return make(\.amount, oneIn(4) ? Decimal.nan : Decimal(Int.random(in: -999...999, using: &random)) / 10)
            case 6: return make(\.takenAt, Date(timeIntervalSinceReferenceDate: Double.random(in: -1e9...1e9, using: &random)))
            case 7: return make(\.station, ["a", "é", "e\u{301}", "ß", ""].randomElement(using: &random) ?? "a")
            case 8: return make(\.optionalCount, oneIn(2) ? nil : Int.random(in: -50...50, using: &random))
            default: return make(\.optionalLevel, oneIn(3) ? nil : oneIn(2) ? .nan : Double.random(in: 0...1, using: &random))
            }
        }
    }

    /// Every stored value of a reading, exactly (bit patterns of floating-point numbers, Unicode
    /// scalars of text), for comparing stores.
    static func fingerprint(_ reading: SensorReading) -> String {
        let values: [String] = [
            "\(reading.count)", "\(reading.small)", "\(reading.big)", "\(reading.level.bitPattern)",
            "\(reading.ratio.bitPattern)", "\(reading.amount)", "\(reading.takenAt.timeIntervalSinceReferenceDate.bitPattern)",
            reading.station.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: "."),
            "\(reading.optionalCount.map(String.init) ?? "nil")", "\(reading.optionalLevel.map { String($0.bitPattern) } ?? "nil")",
        ]
        return values.joined(separator: "|")
    }

    /// The fingerprints of every reading a context sees, in key order.
    static func contents(of context: ModelContext) throws -> [String] {
        try context.fetch(FetchDescriptor<SensorReading>())
            .sorted { $0.persistentModelID.primaryKey ?? 0 < $1.persistentModelID.primaryKey ?? 0 }
            .map(fingerprint)
    }

    /// Random updates by predicate give the same stored models, and the same counts, as fetching
    /// every model, testing the predicate in Swift, setting the property and saving: on the
    /// store that writes them in SQL and through the path that sets models. The context that
    /// made them sees them at once, and the store reopened holds them.
    @Test(arguments: Backend.allCases, [UInt64(1), 2, 3])
    func updatesEqualSettingTheModelsThePredicateSelects(_ backend: Backend, seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let container = try store.container(SensorReading.self, backend: backend)
        let truth = try reference.container(SensorReading.self, backend: .sqlite)
        let context = ModelContext(container)
        let truthContext = ModelContext(truth)
        for _ in 0..<60 {
            let reading = SensorReading.random(using: &random)
            context.insert(reading)
            truthContext.insert(SensorReading(
                station: reading.station, count: reading.count, small: reading.small, big: reading.big, level: reading.level,
                ratio: reading.ratio, amount: reading.amount, takenAt: reading.takenAt,
                optionalCount: reading.optionalCount, optionalLevel: reading.optionalLevel))
        }
        try context.save()
        try truthContext.save()
        _ = try context.fetch(FetchDescriptor<SensorReading>())   // registered: they must follow the updates

        for step in 0..<40 {
            let (name, predicate) = Self.predicates[Int.random(in: 0..<Self.predicates.count, using: &random)]
            // Every other step sets up to four properties at once (the same one perhaps twice:
            // the last value wins, as assignments in a row leave it).
            let assignments = (0..<(step.isMultiple(of: 2) ? 1 : Int.random(in: 1...4, using: &random))).map { _ in
                Assignment.random(using: &random)
            }
            let label = assignments.map(\.label).joined(separator: ", ")
            let updated = assignments.count == 1
                ? try assignments[0].update(context, predicate)
                : try context.update(model: SensorReading.self, where: predicate, setting: assignments.map(\.propertyUpdate))
            let setter = ModelContext(truth)
            let selected = try setter.fetch(FetchDescriptor<SensorReading>()).filter { try predicate?.evaluate($0) ?? true }
            for reading in selected {
                for assignment in assignments { assignment.set(reading) }
            }
            try setter.save()
            let expected = try Self.contents(of: ModelContext(truth))
            #expect(updated == selected.count, "step \(step): \(name), \(label)")
            #expect(try Self.contents(of: ModelContext(container)) == expected, "step \(step): \(name), \(label)")
            #expect(try Self.contents(of: context) == expected, "step \(step), the updating context: \(name), \(label)")
        }
        let reopened = ModelContext(try store.container(SensorReading.self, backend: backend))
        #expect(try Self.contents(of: reopened) == Self.contents(of: ModelContext(truth)))
    }

    /// The update is a save of its own: the context's unsaved work stays unsaved, its unsaved
    /// change of the property wins over the update (and its next save writes it), other models
    /// reload the value, another context sees it, and the history records it as one transaction
    /// of the context's author updating that attribute.
    @Test(arguments: Backend.allCases)
    func anUpdateIsASaveOfItsOwnThatOtherContextsMerge(_ backend: Backend) throws {
        let container = try store.container(StockItem.self, backend: backend)
        let context = ModelContext(container)
        let items = (0..<6).map { StockItem(sku: "S\($0)", price: $0 * 10) }
        for item in items { context.insert(item) }
        try context.save()
        let token = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token
        let other = ModelContext(container)
        let otherItems = try other.fetch(FetchDescriptor<StockItem>(sortBy: [SortDescriptor(\.sku)]))
        // Another container on the store, as another process: it learns of the update from the history.
        let foreign = ModelContext(try ModelContainer(for: Schema([StockItem.self]), configurations: [backend.configuration(url: store.url)]))
        let foreignItems = try foreign.fetch(FetchDescriptor<StockItem>(sortBy: [SortDescriptor(\.sku)]))
        foreignItems[3].note = "foreign note"

        items[1].price = 999                 // an unsaved change of the property: kept
        items[2].note = "unsaved note"       // an unsaved change of another property: kept too
        let unsaved = StockItem(sku: "NEW", price: 0)
        context.insert(unsaved)              // not stored: not updated
        context.author = "pricing"
        let count = try context.update(model: StockItem.self, where: #Predicate { $0.price >= 10 }, set: \.price, to: 7)

        #expect(count == 5)
        #expect(items.map(\.price) == [0, 999, 7, 7, 7, 7])
        #expect(items[2].note == "unsaved note")
        #expect(unsaved.price == 0)
        #expect(context.hasChanges)
        _ = try other.fetch(FetchDescriptor<StockItem>())   // a context merges others' saves as it fetches
        #expect(otherItems.map(\.price) == [0, 7, 7, 7, 7, 7])
        if backend != .dataStore {   // the test's custom store tells no container of another's saves
            try waitForForeignMerge(foreign, until: { foreignItems.map(\.price) == [0, 7, 7, 7, 7, 7] })
            #expect(foreignItems.map(\.price) == [0, 7, 7, 7, 7, 7])
            #expect(foreignItems[3].note == "foreign note")
        }
        let stored = try ModelContext(container).fetch(FetchDescriptor<StockItem>(sortBy: [SortDescriptor(\.sku)]))
        #expect(stored.map(\.sku) == ["S0", "S1", "S2", "S3", "S4", "S5"])
        #expect(stored.map(\.price) == [0, 7, 7, 7, 7, 7])
        #expect(stored.allSatisfy { $0.note == nil })

        // A custom store without history records none.
        if let token {
            try Self.checkHistory(of: container, after: token)
        } else {
            #expect(backend == .dataStore)
        }

        // The context's own save then writes what it kept: last writer wins, per property.
        try context.save()
        let final = try ModelContext(try store.container(StockItem.self, backend: backend))
            .fetch(FetchDescriptor<StockItem>(sortBy: [SortDescriptor(\.sku)]))
        #expect(final.map(\.price) == [0, 0, 999, 7, 7, 7, 7])
        #expect(final.map(\.sku) == ["NEW", "S0", "S1", "S2", "S3", "S4", "S5"])
        #expect(final[3].note == "unsaved note")
    }

    /// Lets a context of another container merge what others saved (on PostgreSQL their news
    /// arrives by notification), for up to ten seconds.
    func waitForForeignMerge(_ context: ModelContext, until merged: () -> Bool) throws {
        for _ in 0..<200 {
            _ = try context.fetch(FetchDescriptor<StockItem>())
            if merged() { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// The history after `token` holds one transaction by "pricing" that updated the price of five items.
    static func checkHistory(of container: ModelContainer, after token: DefaultHistoryToken) throws {
        var after = HistoryDescriptor<DefaultHistoryTransaction>()
        after.predicate = #Predicate { $0.token > token }
        let transactions = try ModelContext(container).fetchHistory(after)
        #expect(transactions.count == 1)
        #expect(transactions.first?.author == "pricing")
        let changes = transactions.first?.changes ?? []
        #expect(changes.count == 5)
        for change in changes {
            guard case .update(let update as DefaultHistoryUpdate<StockItem>) = change else {
                Issue.record("not an update of a stock item: \(change)")
                continue
            }
            #expect(update.containsAttribute(\StockItem.price))
            #expect(update.updatedAttributes.count == 1)
        }
    }

    /// Several properties set in one update change together, in one history transaction whose
    /// updates name every one of them; another container sees them all; a property named twice
    /// gets its last value; no property is no update; one property that cannot be set refuses
    /// the whole update.
    @Test(arguments: Backend.allCases)
    func severalPropertiesChangeInOneTransaction(_ backend: Backend) throws {
        let container = try store.container(StockItem.self, backend: backend)
        let context = ModelContext(container)
        for index in 0..<4 { context.insert(StockItem(sku: "S\(index)", price: index)) }
        try context.save()
        let token = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token
        let restocked = Date(timeIntervalSinceReferenceDate: 86_400)

        let count = try context.update(
            model: StockItem.self, where: #Predicate { $0.price >= 2 },
            .set(\.price, to: 5), .set(\.note, to: "sale"), .set(\.restockedAt, to: restocked), .set(\.price, to: 6))
        #expect(count == 2)
        #expect(try context.update(model: StockItem.self, setting: []) == 0)
        #expect(throws: SwiftDataError.unsupportedKeyPath) {
            try context.update(model: StockItem.self, .set(\.note, to: "never"), .set(\.scanned, to: 1))
        }

        let other = ModelContext(try ModelContainer(for: Schema([StockItem.self]), configurations: [backend.configuration(url: store.url)]))
        let items = try other.fetch(FetchDescriptor<StockItem>(sortBy: [SortDescriptor(\.sku)]))
        #expect(items.map(\.price) == [0, 1, 6, 6])
        #expect(items.map(\.note) == [nil, nil, "sale", "sale"])
        #expect(items.map(\.restockedAt) == [Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: 0), restocked, restocked])
        guard let token else {
            #expect(backend == .dataStore)   // the test's custom store keeps no history
            return
        }
        var after = HistoryDescriptor<DefaultHistoryTransaction>()
        after.predicate = #Predicate { $0.token > token }
        let transactions = try ModelContext(container).fetchHistory(after)
        #expect(transactions.count == 1)
        for change in transactions.first?.changes ?? [] {
            guard case .update(let update as DefaultHistoryUpdate<StockItem>) = change else {
                Issue.record("not an update of a stock item: \(change)")
                continue
            }
            #expect(update.updatedAttributes.count == 3)
            #expect(update.containsAttribute(\StockItem.price) && update.containsAttribute(\StockItem.note) && update.containsAttribute(\StockItem.restockedAt))
        }
        #expect(transactions.first?.changes.count == 2)
    }

    /// With `includeSubclasses` every table of a class hierarchy is updated, without it only the
    /// class's own models.
    @Test(arguments: Backend.allCases)
    func subclassesAreUpdatedUnlessLeftOut(_ backend: Backend) throws {
        let schema = Schema([Picture.self, Clip.self, Album.self])
        let context = ModelContext(try ModelContainer(for: schema, configurations: [backend.configuration(url: store.url)]))
        for item in [MediaItem(title: "plain", rating: 2), Picture(title: "sea", resolution: 1_080, rating: 5), Clip(title: "waves", footage: 12.5)] {
            context.insert(item)
        }
        try context.save()
        #expect(try context.update(model: MediaItem.self, set: \.rating, to: 3, includeSubclasses: false) == 1)
        #expect(try context.update(model: Picture.self, where: #Predicate { $0.resolution > 1_000 }, set: \.rating, to: 4) == 1)
        let reopened = ModelContext(try ModelContainer(for: schema, configurations: [backend.configuration(url: store.url)]))
        let ratings = try reopened.fetch(FetchDescriptor<MediaItem>(sortBy: [SortDescriptor(\.title)])).map { "\($0.title) \($0.rating)" }
        #expect(ratings == ["plain 3", "sea 4", "waves 0"])
        #expect(try reopened.update(model: MediaItem.self, where: #Predicate { $0.rating < 4 }, set: \.title, to: "low") == 2)
        let titles = try ModelContext(try ModelContainer(for: schema, configurations: [backend.configuration(url: store.url)]))
            .fetch(FetchDescriptor<MediaItem>()).map(\.title).sorted()
        #expect(titles == ["low", "low", "sea"])
    }

    /// What an update cannot do throws a specific error and changes nothing: a relationship, an
    /// ephemeral property, a value the store cannot hold, a uniqueness conflict, a configuration
    /// that does not allow saves.
    @Test(arguments: Backend.allCases)
    func refusedUpdatesThrowAndChangeNothing(_ backend: Backend) throws {
        let container = try ModelContainer(for: Schema([StockItem.self, StockShelf.self]), configurations: [backend.configuration(url: store.url)])
        let context = ModelContext(container)
        for index in 0..<3 { context.insert(StockItem(sku: "S\(index)", price: index)) }
        try context.save()
        let shelf = StockShelf(label: "top")
        context.insert(shelf)
        try context.save()

        #expect(throws: SwiftDataError.unsupportedKeyPath) { try context.update(model: StockItem.self, set: \.shelf, to: shelf) }
        #expect(throws: SwiftDataError.unsupportedKeyPath) { try context.update(model: StockItem.self, set: \.scanned, to: 4) }
        let nan = Date(timeIntervalSinceReferenceDate: .nan)
        #expect(throws: SwiftDataError.modelValidationFailure) { try context.update(model: StockItem.self, set: \.restockedAt, to: nan) }
        if backend != .dataStore {   // the test's custom store checks no uniqueness
            #expect(throws: SwiftDataError.self) { try context.update(model: StockItem.self, where: #Predicate { $0.price > 0 }, set: \.sku, to: "same") }
        }
        if backend == .postgres {
            #expect(throws: SwiftDataError.modelValidationFailure) { try context.update(model: StockItem.self, set: \.note, to: "a\u{0}b") }
        }
        let stored = try ModelContext(container).fetch(FetchDescriptor<StockItem>(sortBy: [SortDescriptor(\.sku)]))
        #expect(stored.map(\.sku) == ["S0", "S1", "S2"])
        #expect(stored.allSatisfy { $0.restockedAt == Date(timeIntervalSinceReferenceDate: 0) && $0.note == nil && $0.shelf == nil })
        // A unique property can still be updated where no two rows end up alike.
        #expect(try context.update(model: StockItem.self, where: #Predicate { $0.price == 2 }, set: \.sku, to: "TWO") == 1)

        guard backend != .dataStore else { return }   // its configuration always allows saves
        let readOnly = try ModelContainer(for: Schema([StockItem.self, StockShelf.self]), configurations: [backend.configuration(url: store.url, allowsSave: false)])
        #expect(throws: SwiftDataError.saveNotAllowed) { try ModelContext(readOnly).update(model: StockItem.self, set: \.price, to: 1) }
        #expect(try ModelContext(container).fetch(FetchDescriptor<StockItem>()).map(\.price).sorted() == [0, 1, 2])
    }
}
