import Foundation
import Testing
@testable import OpenSwiftData

@Model final class HTrip {
    var name: String
    @Attribute(.preserveValueOnDeletion) var code: String
    var rating: Int
    @Relationship(deleteRule: .cascade, inverse: \HVisit.trip) var visits: [HVisit] = []
    init(name: String, code: String, rating: Int = 0) {
        self.name = name
        self.code = code
        self.rating = rating
    }
}

@Model final class HVisit {
    var title: String
    var trip: HTrip?
    init(title: String) { self.title = title }
}

@Model final class HTag {
    #Unique<HTag>([\.left], [\.right])
    var left: Int
    var right: Int
    var label: String
    init(left: Int, right: Int, label: String) {
        self.left = left
        self.right = right
        self.label = label
    }
}

/// History as SwiftData documents it: every save one transaction, in order, with its author,
/// tokens, inserts, updates (which attributes) and deletions (with preserved values).
@Suite struct HistoryTests {
    let store = TemporaryStore()

    func container() throws -> ModelContainer {
        try ModelContainer(for: Schema([HTrip.self, HVisit.self, HTag.self]), configurations: [store.configuration()])
    }

    func all(_ context: ModelContext) throws -> [DefaultHistoryTransaction] {
        try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
    }

    @Test func everySaveIsOneTransactionInOrderAfterReopening() throws {
        let tripID: PersistentIdentifier
        do {
            let context = ModelContext(try container())
            context.author = "app"
            let trip = HTrip(name: "Paris", code: "P1")
            context.insert(trip)
            trip.visits = [HVisit(title: "Louvre")]
            try context.save()
            tripID = trip.persistentModelID
            trip.rating = 5
            try context.save()
            context.author = "widget"
            context.delete(trip)
            try context.save()
            try context.save()   // nothing to save: nothing recorded
        }
        let context = ModelContext(try container())
        let history = try all(context)
        #expect(history.count == 3)
        #expect(history.map(\.author) == ["app", "app", "widget"])
        #expect(history.map(\.transactionIdentifier) == history.map(\.transactionIdentifier).sorted())
        #expect(zip(history, history.dropFirst()).allSatisfy { $0.token < $1.token && $0.timestamp <= $1.timestamp })
        #expect(history.allSatisfy { $0.processIdentifier == String(ProcessInfo.processInfo.processIdentifier) })
        let bundle = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
        #expect(history.allSatisfy { $0.bundleIdentifier == bundle })
        #expect(Set(history.map(\.storeIdentifier)).count == 1)
        #expect(history.allSatisfy { $0.token.storeIdentifier == $0.storeIdentifier })
        // A token decoded from data that names no single store has no store identifier.
        let decoded = try JSONDecoder().decode(DefaultHistoryToken.self, from: Data(#"{"tokenValue":{"a":1,"b":2}}"#.utf8))
        #expect(decoded.storeIdentifier == "")

        let inserted = history[0].changes
        #expect(inserted.count == 2)
        guard case .insert(let insert as DefaultHistoryInsert<HTrip>) = inserted[0] else {
            Issue.record("the first change is not the trip's insert: \(inserted[0])")
            return
        }
        #expect(insert.changedPersistentIdentifier == tripID)
        #expect(insert.transactionIdentifier == history[0].transactionIdentifier)
        guard case .insert(_ as DefaultHistoryInsert<HVisit>) = inserted[1] else {
            Issue.record("the second change is not the visit's insert")
            return
        }

        guard case .update(let update as DefaultHistoryUpdate<HTrip>) = try #require(history[1].changes.first) else {
            Issue.record("the second save is not an update of the trip")
            return
        }
        #expect(history[1].changes.count == 1)
        #expect(update.containsAttribute(\HTrip.rating))
        #expect(!update.containsAttribute(\HTrip.name))
        #expect(update.updatedAttributes.count == 1)

        let deletions = history[2].changes
        #expect(deletions.count == 2, "the trip and, by cascade, its visit")
        let tripDeletion = deletions.compactMap { change -> DefaultHistoryDelete<HTrip>? in
            if case .delete(let deletion as DefaultHistoryDelete<HTrip>) = change { return deletion }
            return nil
        }.first
        #expect(tripDeletion?.changedPersistentIdentifier == tripID)
        #expect(tripDeletion?.tombstone[\HTrip.code] as? String == "P1")
        #expect(tripDeletion?.tombstone[\HTrip.name] == nil, "only preserved attributes are kept")
    }

    @Test func predicatesAsAppsWriteThem() throws {
        let context = ModelContext(try container())
        context.author = "app"
        context.insert(HTrip(name: "A", code: "a"))
        try context.save()
        let token = try #require(try all(context).last?.token)
        context.author = "widget"
        context.insert(HVisit(title: "v"))
        try context.save()
        context.author = "app"
        context.insert(HTrip(name: "B", code: "b"))
        try context.save()

        let sinceByApp = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token && $0.author == "app" }))
        #expect(sinceByApp.count == 1)
        #expect(sinceByApp.first?.changes.count == 1)

        let names: Set<String> = ["HVisit"]
        let touchingVisits = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate {
            $0.changes.contains { names.contains($0.changedPersistentIdentifier.entityName) }
        }))
        #expect(touchingVisits.map(\.author) == ["widget"])

        var latest = HistoryDescriptor<DefaultHistoryTransaction>(sortBy: [.init(\.transactionIdentifier, order: .reverse)])
        latest.fetchLimit = 1
        let last = try context.fetchHistory(latest)
        #expect(last.count == 1)
        let newest = try all(context).last?.transactionIdentifier
        #expect(last.first?.transactionIdentifier == newest)
    }

    @Test func deletionByPredicateRecordsEachRowWithItsPreservedValues() throws {
        let context = ModelContext(try container())
        for number in 0..<5 { context.insert(HVisit(title: "v\(number)")) }
        for number in 0..<3 { context.insert(HTrip(name: "t\(number)", code: "c\(number)", rating: number)) }
        try context.save()
        try ModelContext(try container()).delete(model: HVisit.self, where: #Predicate { $0.title != "v0" })
        let other = ModelContext(try container())
        try other.delete(model: HVisit.self, where: #Predicate { $0.title != "v0" })
        try other.save()
        try other.delete(model: HTrip.self, where: #Predicate { $0.rating >= 1 })
        try other.save()
        let history = try all(ModelContext(try container()))
        #expect(history.count == 3)
        #expect(history[1].changes.count == 4)
        #expect(history[1].changes.allSatisfy { if case .delete = $0 { true } else { false } })
        let codes = history[2].changes.compactMap { change -> String? in
            guard case .delete(let deletion as DefaultHistoryDelete<HTrip>) = change else { return nil }
            return deletion.tombstone[\HTrip.code] as? String
        }
        #expect(Set(codes) == ["c1", "c2"])
    }

    @Test func aFailedSaveRecordsNothingAndAnUpsertIsAnUpdate() throws {
        let context = ModelContext(try container())
        context.insert(HTag(left: 1, right: 1, label: "one"))
        context.insert(HTag(left: 2, right: 2, label: "two"))
        try context.save()
        #expect(try all(context).count == 1)
        context.insert(HTrip(name: "written first", code: "w"))
        context.insert(HTag(left: 1, right: 2, label: "both"))   // matches two rows: refused
        #expect(throws: SwiftDataError.self) { try context.save() }
        #expect(try all(ModelContext(try container())).count == 1)
        context.rollback()

        context.insert(HTag(left: 2, right: 9, label: "two again"))
        try context.save()
        let last = try #require(try all(context).last)
        guard case .update(let update as DefaultHistoryUpdate<HTag>) = try #require(last.changes.first) else {
            Issue.record("an upsert is not recorded as an update: \(last.changes)")
            return
        }
        #expect(update.containsAttribute(\HTag.label))
    }

    /// An author is recorded as given; PostgreSQL text cannot hold U+0000, so there the save is
    /// refused, saying why, with nothing written and the changes kept for a save under another name.
    @Test func anAuthorWithANullCharacterIsRecordedOrRefusedWithNothingWritten() throws {
        let context = ModelContext(try container())
        context.author = "app\u{0}widget"
        context.insert(HTrip(name: "Paris", code: "P1"))
        if TemporaryStore.defaultBackend == .postgres {
            let error = #expect(throws: SwiftDataError.modelValidationFailure) { try context.save() }
            #expect(error?.reason?.contains("U+0000") == true, "\(String(describing: error))")
            #expect(try ModelContext(try container()).fetchCount(FetchDescriptor<HTrip>()) == 0)
            #expect(try all(ModelContext(try container())).isEmpty)
            #expect(context.hasChanges)
            context.author = "app"
        }
        try context.save()
        let authors = try all(ModelContext(try container())).map(\.author)
        #expect(authors == [context.author])
        #expect(try ModelContext(try container()).fetchCount(FetchDescriptor<HTrip>()) == 1)
    }

    @Test func deletedHistoryExpiresOlderTokens() throws {
        let context = ModelContext(try container())
        for number in 0..<4 {
            context.insert(HTrip(name: "t\(number)", code: "c\(number)"))
            try context.save()
        }
        let history = try all(context)
        #expect(history.count == 4)
        let old = history[0].token
        let middle = history[2].token
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= middle }))
        let reopened = ModelContext(try container())
        #expect(try all(reopened).map(\.transactionIdentifier) == [history[3].transactionIdentifier])
        #expect(throws: SwiftDataError.historyTokenExpired) {
            try reopened.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > old }))
        }
        let since = try reopened.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > middle }))
        #expect(since.count == 1)

        // Deleting everything, the newest transaction included, never hands its number out again.
        try reopened.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(try all(reopened).isEmpty)
        let again = ModelContext(try container())
        again.insert(HTrip(name: "later", code: "l"))
        try again.save()
        let later = try all(again)
        #expect(later.count == 1)
        #expect(later[0].transactionIdentifier > history[3].transactionIdentifier)
    }
}

/// The history row's encoding gives back every key and mask, whatever their size or order.
@Suite struct HistoryEncodingTests {
    @Test func keysAndMasksRoundTrip() throws {
        let entity = try #require(Schema([HTrip.self, HVisit.self, HTag.self]).entitiesByName["HTrip"])
        let keys: [Int64] = [1, 2, 3, 1_000, -5, .max, .min, 0, 42]
        let updatedKeys: [Int64] = [9, .max - 1, .min + 1, -6, 8]
        let masks: [UInt64] = [0, 1, .max, 1 << 63, 12_345]
        var log = HistoryLog()
        for key in keys { log.insert(entity, key: key) }
        for (key, mask) in zip(updatedKeys, masks) { log.update(entity, key: key, mask: mask) }
        log.delete(entity, key: 7, preserved: ["code": .text("c7")])
        log.delete(entity, key: 6, preserved: nil)
        let data = try log.encoded()
        let changes = try #require(data.withUnsafeBytes { HistoryLog.decode($0) })
        #expect(changes.filter { $0.kind == .insert }.map(\.key) == keys)
        let updates = changes.filter { $0.kind == .update }
        #expect(updates.map(\.key) == updatedKeys)
        #expect(updates.map(\.changedProperties) == masks)
        let deletions = changes.filter { $0.kind == .delete }
        #expect(deletions.map(\.key) == [7, 6])
        #expect(deletions.first?.preservedValues["code"] == .text("c7"))
        #expect(deletions.last?.preservedValues.isEmpty == true)
        var consecutive = HistoryLog()
        for key in Int64(1_000_000)..<1_001_000 { consecutive.insert(entity, key: key) }
        let compact = try consecutive.encoded()
        #expect(compact.count < 1_100, "consecutive keys take a byte each: \(compact.count) bytes for 1,000")
        #expect(data.dropLast().withUnsafeBytes { HistoryLog.decode($0) } == nil, "a truncated row is refused")
    }

    /// A save's inserts recorded at once (one entity's run shares the keys' storage; any other
    /// save is recorded row by row, skipping the rows left out) are recorded as inserting each
    /// row in turn records them.
    @Test(arguments: [1, 2, 3, 4, 5, 6])
    func insertsRecordedAtOnceAreTheInsertsRecordedOneByOne(seed: UInt64) throws {
        let schema = Schema([HTrip.self, HVisit.self, HTag.self])
        let trip = try #require(schema.entitiesByName["HTrip"])
        let visit = try #require(schema.entitiesByName["HVisit"])
        var generator = SeededGenerator(seed: seed)
        for round in 0..<50 {
            let count = Int.random(in: 0...40, using: &generator)
            let mixed = round % 2 == 1
            let entities = (0..<count).map { _ in mixed && Bool.random(using: &generator) ? visit : trip }
            let keys = (0..<count).map { _ in Int64.random(in: -3...1_000, using: &generator) }
            let skipped = round % 3 == 0 ? [] : (0..<count).filter { _ in Int.random(in: 0..<4, using: &generator) == 0 }
            var earlier = HistoryLog()
            var oneByOne = HistoryLog()
            // A run of the same entity before: the save's rows join it.
            if round % 4 == 0 {
                earlier.insert(trip, key: 5)
                oneByOne.insert(trip, key: 5)
            }
            var atOnce = earlier
            if !mixed, skipped.isEmpty, round % 12 == 0 {
                atOnce.insert(trip, keys: keys)   // the call of a save that knows its rows are one entity's
            } else {
                atOnce.insert(entities, keys: keys, skipping: skipped)
            }
            for position in 0..<count where !skipped.contains(position) {
                oneByOne.insert(entities[position], key: keys[position])
            }
            #expect(try atOnce.encoded() == oneByOne.encoded(), "seed \(seed), round \(round)")
        }
    }

    /// The record of one update split where its key goes, with the key's varint placed between
    /// the parts (as a store does in SQL), is the record of that update.
    @Test func oneUpdateSplitAroundItsKeyIsTheUpdatesRecord() throws {
        let entity = try #require(Schema([HTrip.self, HVisit.self, HTag.self]).entitiesByName["HTrip"])
        for (key, mask) in [(Int64(1), UInt64(0b111)), (127, 1), (128, .max), (300, 0), (-5, 6), (.max, 1 << 63), (.min, 5)] {
            var log = HistoryLog()
            log.update(entity, key: key, mask: mask)
            let parts = HistoryLog.oneUpdate(entityName: entity.name, mask: mask)
            var zigzag = UInt64(bitPattern: (key << 1) ^ (key >> 63))
            var varint: [UInt8] = []
            while zigzag >= 0x80 {
                varint.append(UInt8(truncatingIfNeeded: zigzag) | 0x80)
                zigzag >>= 7
            }
            varint.append(UInt8(zigzag))
            #expect(parts.beforeKey + varint + parts.afterKey == (try log.encoded()), "key \(key), mask \(mask)")
        }
    }

    /// Whatever another program writes into a history row, reading it gives changes or says the row
    /// is unreadable (`nil`, reported as `storeIsCorrupt` with the transaction's number): no trap, no
    /// error of another kind.
    @Test func anyBytesDecodeToChangesOrNil() throws {
        let entity = try #require(Schema([HTrip.self, HVisit.self, HTag.self]).entitiesByName["HTrip"])
        var log = HistoryLog()
        for key in [Int64(1), 2, 3, 900, -4] { log.insert(entity, key: key) }
        log.update(entity, key: 5, mask: 0b1011)
        log.delete(entity, keys: [6, 7], preserved: [7: ["code": .text("c7"), "day": .date(Date(timeIntervalSinceReferenceDate: 1))]])
        let valid = Array(try log.encoded())
        #expect(valid.withUnsafeBytes { HistoryLog.decode($0) }?.count == 8)
        var generator = SeededGenerator(seed: 0x0517_0B17)
        var unreadable = 0
        for round in 0..<4_000 {
            var bytes = valid
            switch round % 3 {
            case 0:
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            case 1:
                bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &generator)))
            default:
                bytes = (0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            }
            if bytes.withUnsafeBytes({ HistoryLog.decode($0) }) == nil { unreadable += 1 }
        }
        #expect(unreadable > 1_000)
        // A change in the preserved values' JSON, which the decoder used to throw out of.
        let json = try #require(valid.firstIndex(of: UInt8(ascii: "[")))
        var broken = valid
        broken[json] = UInt8(ascii: "x")
        #expect(broken.withUnsafeBytes { HistoryLog.decode($0) } == nil)
    }

    /// Preserved values stay with their rows when a run of deletions has them for some rows only,
    /// wherever those rows come in the run, recorded one at a time or as a batch.
    @Test func preservedValuesStayAlignedWithTheirRows() throws {
        let entity = try #require(Schema([HTrip.self, HVisit.self, HTag.self]).entitiesByName["HTrip"])
        var log = HistoryLog()
        log.delete(entity, keys: [10, 11], preserved: [:])
        log.delete(entity, key: 12, preserved: nil)
        log.delete(entity, keys: [13, 14, 15], preserved: [14: ["code": .text("c14")]])
        log.delete(entity, key: 16, preserved: ["code": .text("c16")])
        log.delete(entity, keys: [17, 18], preserved: [:])
        let changes = try #require(try log.encoded().withUnsafeBytes { HistoryLog.decode($0) })
        #expect(changes.map(\.key) == Array(10...18))
        let codes = changes.map { $0.preservedValues["code"] }
        #expect(codes == [nil, nil, nil, nil, .text("c14"), nil, .text("c16"), nil, nil])
        var plain = HistoryLog()
        plain.delete(entity, keys: Array(1...1_000), preserved: [:])
        #expect(try plain.encoded().count < 1_100, "rows without preserved values take no room for them")
    }

    /// A transaction shows one change per row: a row's updates merge into one, and a row the
    /// same save inserted or deleted shows no update.
    @Test func aSaveRecordsOneChangePerRow() throws {
        let entity = try #require(Schema([HTrip.self, HVisit.self, HTag.self]).entitiesByName["HTrip"])
        var log = HistoryLog()
        log.insert(entity, key: 1)
        log.update(entity, key: 2, mask: 0b001)
        log.updateByStore(entity, key: 1, mask: 0b010)
        log.updateByStore(entity, key: 2, mask: 0b100)
        log.updateByStore(entity, key: 3, mask: 0b100)
        log.delete(entity, key: 3, preserved: nil)
        let changes = try #require(try log.encoded().withUnsafeBytes { HistoryLog.decode($0) })
        #expect(changes.map(\.kind) == [.insert, .update, .delete])
        #expect(changes.map(\.key) == [1, 2, 3])
        #expect(changes[1].changedProperties == 0b101)
    }
}
