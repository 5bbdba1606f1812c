import Foundation
import PredicateFuzzing
import Testing
@testable import OpenSwiftData

/// Observers over random predicates, sorts and pages stay equal to a fresh fetch of their
/// descriptor through random inserts, edits, relationship changes and deletions (one by one and by
/// predicate), saved from another context; and the store reopened agrees.
///
/// A failure prints its seed; rerun it alone with
/// `OSD_OBSERVER_SEED=<seed> swift test --filter ResultsObserverDifferentialTests`; run more seeds
/// with `OSD_OBSERVER_SEEDS=<count>`.
@MainActor
@Suite struct ResultsObserverDifferentialTests {
    nonisolated static var seeds: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let given = environment["OSD_OBSERVER_SEED"].flatMap(UInt64.init) { return [given] }
        // A quarter of them in the PostgreSQL pass (`TestCounts`: each save there is a round trip).
        let count = environment["OSD_OBSERVER_SEEDS"].flatMap(UInt64.init) ?? UInt64(TestCounts.count(quick: 4, full: 8))
        return Array(1...max(count, 1))
    }

    @Test(arguments: seeds)
    func observersEqualAFreshFetchAfterEverySave(seed: UInt64) throws {
        let store = TemporaryStore()
        let schema = Schema([FuzzRow.self, FuzzOwner.self, FuzzItem.self])
        let container = try ModelContainer(for: schema, configurations: [store.configuration()])
        var random = SplitMix64(seed: seed)
        var fuzzer = PredicateFuzzer(seed: seed &* 7919, maximumDepth: 2)
        var nextIndex = 0
        func newRows(_ count: Int) -> [PlainRow] {
            fuzzer.rows(count: count).map { row in
                var row = row
                row.index = nextIndex
                nextIndex += 1
                return row
            }
        }

        let writer = ModelContext(container)
        let owners = (0..<3).map { FuzzOwner(name: ["", "é", "e\u{301}"][$0], rank: $0) }
        for owner in owners { writer.insert(owner) }
        for row in newRows(120) { writer.insert(FuzzRow(row)) }
        try writer.save()

        func randomSort() -> [SortDescriptor<FuzzRow>] {
            let forward = Bool.random(using: &random)
            let order: SortOrder = forward ? .forward : .reverse
            let first: SortDescriptor<FuzzRow> = switch Int.random(in: 0..<6, using: &random) {
            case 0: SortDescriptor(\.int, order: order)
            case 1: SortDescriptor(\.double, order: order)
            case 2: SortDescriptor(\.text, order: order)
            case 3: SortDescriptor(\.optText, order: order)
            case 4: SortDescriptor(\.optInt, order: order)
            default: SortDescriptor(\.index, order: order)
            }
            return Bool.random(using: &random) ? [first] : [first, SortDescriptor(\.double, order: .reverse)]
        }

        var observers: [(label: String, observer: ResultsObserver<FuzzRow, Never>)] = []
        var sectioned: [ResultsObserver<FuzzRow, String>] = []
        for number in 0..<14 {
            let node = fuzzer.predicate()
            var descriptor = FetchDescriptor<FuzzRow>(
                predicate: PredicateBuilder<FuzzRow, FuzzOwner, FuzzItem>.predicate(node, paths: .models), sortBy: randomSort())
            if number % 4 == 3 {
                descriptor.fetchLimit = Int.random(in: 1...20, using: &random)
                descriptor.fetchOffset = Int.random(in: 0...5, using: &random)
            }
            observers.append(("observer \(number): \(node)", try ResultsObserver(fetchDescriptor: descriptor, modelContainer: container)))
        }
        // Predicates on the row's own attributes, which saves update row by row.
        let edgeInts = [Int.min, -1, 0, 1, 3, Int.max]
        let edgeDoubles = [-Double.infinity, -0.0, 0.0, 1.5, 2, .infinity]
        let edgeTexts = ["", "a", "b", "é", "e\u{301}", "日本"]
        for number in 0..<8 {
            let int = edgeInts[Int.random(in: 0..<edgeInts.count, using: &random)]
            let double = edgeDoubles[Int.random(in: 0..<edgeDoubles.count, using: &random)]
            let text = edgeTexts[Int.random(in: 0..<edgeTexts.count, using: &random)]
            let predicate = Self.rowLocalPredicate(number, int: int, double: double, text: text)
            observers.append(("row-local \(number)", try ResultsObserver(filterBy: predicate, sortBy: randomSort(), modelContainer: container)))
        }
        for _ in 0..<2 {
            let node = fuzzer.predicate()
            sectioned.append(try ResultsObserver(
                fetchDescriptor: FetchDescriptor(predicate: PredicateBuilder<FuzzRow, FuzzOwner, FuzzItem>.predicate(node, paths: .models), sortBy: randomSort()),
                sectionBy: \.optText, modelContainer: container))
        }

        for round in 0..<30 {
            let rows = try writer.fetch(FetchDescriptor<FuzzRow>())
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let fresh = newRows(1)[0]
                switch Int.random(in: 0..<10, using: &random) {
                case 0, 1:
                    let row = FuzzRow(fresh)
                    writer.insert(row)
                    if Bool.random(using: &random) { row.owner = owners[Int.random(in: 0..<owners.count, using: &random)] }
                case 2, 3, 4:
                    guard let row = rows.randomElement(using: &random), !row.isDeleted else { continue }
                    switch Int.random(in: 0..<6, using: &random) {
                    case 0: row.int = fresh.int
                    case 1: row.double = fresh.double
                    case 2: row.text = fresh.text; row.optText = fresh.optText
                    case 3: row.flag = fresh.flag; row.optFlag = fresh.optFlag; row.optInt = fresh.optInt
                    case 4: row.tags = fresh.tags
                    default: row.int = fresh.int; row.text = fresh.text; row.double = fresh.double
                    }
                case 5:
                    guard let row = rows.randomElement(using: &random), !row.isDeleted else { continue }
                    row.owner = Bool.random(using: &random) ? nil : owners[Int.random(in: 0..<owners.count, using: &random)]
                case 6:
                    guard let row = rows.randomElement(using: &random), !row.isDeleted else { continue }
                    row.items.append(FuzzItem(title: fresh.text, score: fresh.int))
                case 7:
                    owners[Int.random(in: 0..<owners.count, using: &random)].rank = fresh.int
                case 8:
                    guard let row = rows.randomElement(using: &random), !row.isDeleted else { continue }
                    writer.delete(row)
                default:
                    let limit = fresh.int
                    try writer.delete(model: FuzzRow.self, where: #Predicate { $0.int == limit && $0.flag })
                }
            }
            try writer.save()
            if round % 3 == 2 {
                // An update by predicate: a save of its own, of rows no context loaded.
                let fresh = newRows(1)[0]
                let predicate = PredicateBuilder<FuzzRow, FuzzOwner, FuzzItem>.predicate(fuzzer.predicate(), paths: .models)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: try writer.update(model: FuzzRow.self, where: predicate, set: \.int, to: fresh.int)
                case 1: try writer.update(model: FuzzRow.self, where: predicate, set: \.text, to: fresh.text)
                default: try writer.update(model: FuzzRow.self, where: predicate, set: \.double, to: fresh.double)
                }
            }

            let checker = ModelContext(container)
            for (label, observer) in observers {
                let expected = try checker.fetch(observer.fetchDescriptor).map(\.index)
                let observed = observer.results.map(\.index)
                if observed != expected {
                    Issue.record("seed \(seed), round \(round), \(label), sorted by \(observer.sortBy.compactMap(\.keyPath)): observed \(observed), expected \(expected)")
                    return
                }
            }
            for observer in sectioned {
                let expected = try checker.fetch(observer.fetchDescriptor)
                let sections = try #require(observer.sections)
                #expect(sections.flatMap { $0.map(\.index) } == expected.map(\.index), "seed \(seed), round \(round): sectioned results")
                #expect(sections.allSatisfy { section in section.allSatisfy { ($0.optText ?? "") == section.title } }, "seed \(seed): every model in its section")
            }
        }

        let counts = observers.map(\.observer.live.updateCounts)
        #expect(counts.contains { $0.rowByRow > 0 } && counts.contains { $0.refetched > 0 }, "seed \(seed): both ways of updating ran: \(counts)")

        // The store, reopened, agrees with what the observers show.
        let reopened = ModelContext(try ModelContainer(for: schema, configurations: [store.configuration()]))
        for (label, observer) in observers {
            #expect(try reopened.fetch(observer.fetchDescriptor).map(\.index) == observer.results.map(\.index), "seed \(seed), \(label) after reopening")
        }
    }

    /// One of eight predicates that read only the row's own attributes.
    static func rowLocalPredicate(_ number: Int, int: Int, double: Double, text: String) -> Predicate<FuzzRow> {
        switch number % 8 {
        case 0: return #Predicate { $0.int > int }
        case 1: return #Predicate { $0.double <= double || $0.flag }
        case 2: return #Predicate { $0.text >= text }
        case 3: return #Predicate { $0.optText == nil || $0.optText == text }
        case 4: return #Predicate { $0.flag != ($0.optFlag ?? false) && $0.int != int }
        case 5: return #Predicate { $0.text.contains(text) || $0.double > double }
        case 6: return #Predicate { ($0.optInt ?? 0) < int }
        default: return #Predicate { !$0.flag }
        }
    }
}
