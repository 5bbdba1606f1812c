import Foundation
import Testing
@testable import OpenSwiftData

@Model final class LogicRow {
    var flag: Bool
    var tags: [String]
    var amount: Int
    var note: String?
    var owner: LogicOwner?
    @Relationship(inverse: \LogicItem.row) var items: [LogicItem] = []
    init(flag: Bool, tags: [String], amount: Int, note: String?) {
        self.flag = flag
        self.tags = tags
        self.amount = amount
        self.note = note
    }
}

@Model final class LogicOwner {
    var name: String
    var flag: Bool
    init(name: String, flag: Bool) { self.name = name; self.flag = flag }
}

@Model final class LogicItem {
    var title: String
    var row: LogicRow?
    init(title: String) { self.title = title }
}

/// Boolean sub-expressions used as values (operands of `==` and `!=`, a ternary's condition, a
/// closure's body, under `!`) select exactly what `evaluate` selects: a part the store cannot
/// express never becomes a constant where a constant changes the answer, and SQL's NULL never
/// passes for a Swift Bool.
@Suite struct BooleanValueTests {
    static func predicates() -> [(String, Predicate<LogicRow>)] {
        [
            ("bool != bool, a part in Swift", #Predicate { ($0.flag && $0.tags.isEmpty) != (($0.owner != nil) && $0.flag) }),
            ("bool == bool, a part in Swift", #Predicate { ($0.flag || $0.tags.isEmpty) == ($0.owner == nil) }),
            ("ternary on a Swift-only condition", #Predicate { ($0.tags.isEmpty || $0.tags.isEmpty) ? ($0.items.isEmpty == false) : ($0.owner != nil) }),
            ("flatMap ignoring its argument", #Predicate { row in row.owner.flatMap { _ in (row.amount != row.tags.count) || ((row.owner != nil) && false) } != true }),
            ("negated force unwrap", #Predicate { !($0.note! == "n1") }),
            ("force unwrap beside a deciding false", #Predicate { !($0.note!.isEmpty && false) }),
            ("negated Swift-only conjunct", #Predicate { !($0.flag && $0.tags.count > 1) }),
            ("optional equals itself", #Predicate { $0.note == $0.note }),
            ("optional to-one equals itself", #Predicate { $0.owner?.name == $0.owner?.name }),
            ("first of an array", #Predicate { $0.tags.first == "a" }),
            ("bool of a related model as a value", #Predicate { ($0.owner?.flag == true) == $0.flag }),
            ("contains where with a Swift-only part", #Predicate { $0.items.contains { $0.title.isEmpty == $0.title.contains("x") } }),
            ("ternary inside a comparison", #Predicate { ($0.flag ? $0.amount : -$0.amount) > 2 }),
            ("nil-coalesced bool", #Predicate { ($0.owner?.flag ?? $0.flag) != $0.tags.isEmpty }),
        ]
    }

    @Test(arguments: Backend.allCases) func boolValuesMatchSwiftEvaluation(_ backend: Backend) throws {
        let store = TemporaryStore()
        let schema = Schema([LogicRow.self, LogicOwner.self, LogicItem.self])
        func container() throws -> ModelContainer { try ModelContainer(for: schema, configurations: [backend.configuration(url: store.url)]) }
        do {
            var random = SeededGenerator(seed: 5)
            let context = ModelContext(try container())
            let owners = (0..<4).map { LogicOwner(name: "o\($0)", flag: $0 % 2 == 0) }
            for number in 0..<240 {
                let tags = [["a"], [], ["b", "a"], ["x", "y", "z"]][Int.random(in: 0..<4, using: &random)]
                let row = LogicRow(flag: Bool.random(using: &random), tags: tags, amount: Int.random(in: -3...5, using: &random),
                                   note: [nil, "n1", "", "n2"][Int.random(in: 0..<4, using: &random)])
                context.insert(row)
                if number % 3 != 0 { row.owner = owners[Int.random(in: 0..<owners.count, using: &random)] }
                row.items = (0..<Int.random(in: 0..<3, using: &random)).map { LogicItem(title: ["", "x", "ax", "b"][($0 + number) % 4]) }
            }
            try context.save()
        }
        let context = ModelContext(try container())
        let all = try context.fetch(FetchDescriptor<LogicRow>())
        #expect(all.count == 240)
        for (name, predicate) in Self.predicates() {
            let expected = Set(all.filter { (try? predicate.evaluate($0)) ?? false }.map(\.persistentModelID))
            let fetched = try context.fetch(FetchDescriptor(predicate: predicate))
            #expect(Set(fetched.map(\.persistentModelID)) == expected, "\(name): \(fetched.count) fetched, \(expected.count) expected")
            #expect(try context.fetchCount(FetchDescriptor(predicate: predicate)) == expected.count, "count: \(name)")
        }
    }

    /// Where a part must run in Swift, the plan says so: never an exact plan with a guessed constant inside a value.
    @Test func aSwiftOnlyPartInsideAValueMakesThePlanInexact() throws {
        let schema = Schema([LogicRow.self, LogicOwner.self, LogicItem.self])
        let entity = try #require(schema.entity(for: LogicRow.self))
        for (name, predicate) in Self.predicates().prefix(4) {
            let plan = PredicateTranslator.plan(for: FetchDescriptor(predicate: predicate), entity: entity, schema: schema)
            #expect(!plan.isExact, "\(name)")
        }
    }
}
