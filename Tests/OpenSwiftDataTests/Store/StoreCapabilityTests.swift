import Foundation
import Testing
@testable import OpenSwiftData

/// A store behind the seam that declines part of what the translator produces, as a user's
/// `DataStore` may: here text functions, disjunctions and multi-key sorts. Everything else is the
/// SQLite store's.
final class DecliningStore: StoreBackend {
    let base: SQLiteStore
    let declined = LockedValue(0)

    init(_ base: SQLiteStore) { self.base = base }

    func canEvaluate(_ expression: QueryExpression) -> Bool {
        let accepted = Self.accepts(expression)
        if !accepted { declined.withValue { $0 += 1 } }
        return accepted
    }

    private static func accepts(_ expression: QueryExpression) -> Bool {
        switch expression {
        case .text, .or: return false
        case .and(let lhs, let rhs): return accepts(lhs) && accepts(rhs)
        case .not(let operand), .negate(let operand), .isNull(let operand), .falseIfNull(let operand): return accepts(operand)
        case .compare(_, let lhs, let rhs, _), .arithmetic(_, let lhs, let rhs), .coalesce(let lhs, let rhs):
            return accepts(lhs) && accepts(rhs)
        case .conditional(let test, let yes, let no): return accepts(test) && accepts(yes) && accepts(no)
        case .inList(let operand, _): return accepts(operand)
        case .subquery(let subquery): return subquery.filter.map(accepts) ?? true
        case .attribute, .value, .boolean, .scoped, .key: return true
        }
    }

    func canSort(by sort: [QuerySort]) -> Bool { sort.count <= 1 }

    var identifier: String { base.identifier }
    var isReadOnly: Bool { base.isReadOnly }
    func rowShape(of entity: Schema.Entity) throws -> RowShape { try base.rowShape(of: entity) }
    func forEachRow(_ fetch: StoreFetch, attributes: [Int]?, _ body: (StoreRow) throws -> Void) throws {
        try base.forEachRow(fetch, attributes: attributes, body)
    }
    func count(_ fetch: StoreFetch) throws -> Int { try base.count(fetch) }
    func primaryKeys(_ fetch: StoreFetch) throws -> [Int64] { try base.primaryKeys(fetch) }
    /// When set, reads of rows by key fail with this error.
    let failingReads = LockedValue<SwiftDataError?>(nil)

    func forEachRow(of entity: Schema.Entity, primaryKeys: [Int64], _ body: (StoreRow) throws -> Void) throws {
        if let error = failingReads.load() { throw error }
        try base.forEachRow(of: entity, primaryKeys: primaryKeys, body)
    }
    func loadAttribute(of entity: Schema.Entity, primaryKey: Int64, attribute: Int, _ body: (StoreRow) throws -> Void) throws -> Bool {
        try base.loadAttribute(of: entity, primaryKey: primaryKey, attribute: attribute, body)
    }
    func rowExists(of entity: Schema.Entity, key: Int64) throws -> Bool { try base.rowExists(of: entity, key: key) }
    func forEachRelatedRow(
        of link: RelationshipLink, from source: Schema.Entity, owners: [Int64], destination: Schema.Entity,
        _ body: (StoreRow, _ owner: Int64) throws -> Void
    ) throws {
        try base.forEachRelatedRow(of: link, from: source, owners: owners, destination: destination, body)
    }
    /// When set, saves fail with this error before writing anything.
    let failingSaves = LockedValue<SwiftDataError?>(nil)

    func save(_ changes: StoreChanges) throws -> StoreSaveResult {
        if let error = failingSaves.load() { throw error }
        return try base.save(changes)
    }
    func eraseAll() throws { try base.eraseAll() }
    func close() { base.close() }
}

/// What a store declines is evaluated in Swift, and results stay those of `predicate.evaluate`.
@Suite struct StoreCapabilityTests {
    /// Every predicate of the corpus, through a store that declines part of them.
    @Test func declinedFiltersAndSortsRunInSwift() throws {
        let store = TemporaryStore()
        let originals = PredicateCorpus.items(count: 800, seed: 11)
        let schema = Schema([Item.self])
        let sqlite = try SQLiteStore(url: store.url, schema: schema, allowsSave: true)
        let declining = DecliningStore(sqlite)
        let container = try ModelContainer(for: schema, stores: [(declining, ModelConfiguration(url: store.url))])
        do {
            let context = ModelContext(container)
            for item in originals { context.insert(item) }
            try context.save()
        }
        let context = ModelContext(container)
        for (name, predicate) in PredicateCorpus.predicates(sample: originals[5]) {
            let expected = Set(originals.filter { (try? predicate.evaluate($0)) ?? false }.map(\.persistentModelID))
            let fetched = try context.fetch(FetchDescriptor(predicate: predicate))
            #expect(Set(fetched.map(\.persistentModelID)) == expected, "fetch: \(name)")
            #expect(try context.fetchCount(FetchDescriptor(predicate: predicate)) == expected.count, "count: \(name)")
        }
        #expect(declining.declined.load() > 0, "the corpus has text and disjunctions to decline")

        let sorted = try context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.count), SortDescriptor(\.date, order: .reverse)]))
        let expectedOrder = originals.sorted { $0.count != $1.count ? $0.count < $1.count : ($0.date != $1.date ? $0.date > $1.date : $0.persistentModelID < $1.persistentModelID) }
        #expect(sorted.map(\.count) == expectedOrder.map(\.count))
        #expect(sorted.map(\.date) == expectedOrder.map(\.date))

        // A deletion by a declined predicate loads the candidates and decides in Swift.
        try context.delete(model: Item.self, where: #Predicate { $0.count > 10 || $0.flag })
        try context.save()
        let survivors = originals.filter { !($0.count > 10 || $0.flag) }.count
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Item>()) == survivors)
    }

    /// A store that adopts only the core seam (no capability) still answers every call: updates
    /// by predicate, aggregates and deletions by predicate run in the context over the models it
    /// loads, with the results the SQLite store gives computing them itself, and its history is
    /// empty rather than an error.
    @Test func aStoreWithOnlyTheCoreSeamServesEveryCall() throws {
        let store = TemporaryStore()
        let originals = PredicateCorpus.items(count: 300, seed: 5)
        let schema = Schema([Item.self])
        let sqlite = try SQLiteStore(url: store.url, schema: schema, allowsSave: true)
        let core = DecliningStore(sqlite)
        let capabilities = StoreCapabilities(of: core)
        #expect(capabilities.history == nil && capabilities.aggregates == nil && capabilities.externalCommits == nil)
        #expect(!capabilities.appliesDeleteRules && !capabilities.appliesBatchUpdates && !capabilities.takesFetchDescriptors)
        let full = StoreCapabilities(of: sqlite)
        #expect(full.history != nil && full.aggregates != nil && full.externalCommits != nil && full.appliesDeleteRules && full.appliesBatchUpdates)

        let container = try ModelContainer(for: schema, stores: [(core, ModelConfiguration(url: store.url))])
        let context = ModelContext(container)
        for item in originals { context.insert(item) }
        try context.save()
        // The models in `originals` are the context's: the update sets them too.
        let below = originals.filter { $0.count < 5 }.count
        let counts = originals.map { max($0.count, 5) }
        #expect(below > 0 && below < originals.count)

        let updated = try context.update(model: Item.self, where: #Predicate { $0.count < 5 }, set: \.count, to: 5)
        #expect(updated == below)
        try context.save()
        let reader = ModelContext(container)
        #expect(try reader.sum(of: \Item.count) == counts.reduce(0, +))
        #expect(try reader.maximum(of: \Item.count) == counts.max())
        #expect(try reader.minimum(of: \Item.count) == 5)
        #expect(try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).isEmpty)

        try reader.delete(model: Item.self, where: #Predicate { $0.count == 5 })
        try reader.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Item>()) == counts.filter { $0 != 5 }.count)
    }
}
