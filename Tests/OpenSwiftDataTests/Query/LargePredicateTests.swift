import Foundation
import Testing
@testable import OpenSwiftData

@Model final class SensorSample {
    var label: String
    var value: Int
    var note: String?
    init(label: String, value: Int, note: String?) {
        self.label = label
        self.value = value
        self.note = note
    }
}

/// Predicates as apps build them at run time, from a user's filters or a list of identifiers:
/// thousands of conditions joined by `||` or `&&`, deep nesting, lists longer than a statement's
/// parameters. Each gives `evaluate`'s answer on every store, reopened, without an error.
struct LargePredicateTests {
    typealias Variable = PredicateExpressions.Variable<SensorSample>

    /// A store of `count` samples, and the context of a second container on it. (The size of the
    /// predicates is what is tried, not the rows': every row is evaluated in Swift against every
    /// condition, by the test and by the custom store.)
    func samples(_ backend: Backend, count: Int = 80) throws -> (TemporaryStore, ModelContext) {
        let store = TemporaryStore()
        do {
            let context = ModelContext(try store.container(SensorSample.self, backend: backend))
            try Self.insertSamples(count, into: context)
        }
        return (store, ModelContext(try store.container(SensorSample.self, backend: backend)))
    }

    /// Saves `count` samples: values 0 to `count - 1`, a note on two in three.
    static func insertSamples(_ count: Int, into context: ModelContext) throws {
        for index in 0..<count {
            context.insert(SensorSample(label: "r\(index)", value: index, note: index % 3 == 0 ? nil : "n\(index % 7)"))
        }
        try context.save()
    }

    /// `value == n₁ || value == n₂ || …`, one condition per number, built as an app builds it.
    static func valueIsAnyOf(_ numbers: [Int]) -> Predicate<SensorSample> {
        Predicate<SensorSample>({ (input: Variable) -> any StandardPredicateExpression<Bool> in
            var expression: any StandardPredicateExpression<Bool> = PredicateExpressions.Value(false)
            for number in numbers {
                expression = Self.either(expression, PredicateExpressions.Equal(lhs: Self.value(input), rhs: PredicateExpressions.Value(number)))
            }
            return expression
        })
    }

    /// Checks fetch, count and identifiers against `evaluate` on every sample.
    func expectSwiftsAnswer(_ predicate: Predicate<SensorSample>, in context: ModelContext, _ comment: Comment) throws {
        let all = try context.fetch(FetchDescriptor<SensorSample>())
        let expected = Set(try all.filter { try predicate.evaluate($0) }.map(\.value))
        let fetched = try context.fetch(FetchDescriptor(predicate: predicate))
        #expect(Set(fetched.map(\.value)) == expected, comment)
        #expect(fetched.count == expected.count, comment)
        #expect(try context.fetchCount(FetchDescriptor(predicate: predicate)) == expected.count, comment)
        #expect(try context.fetchIdentifiers(FetchDescriptor(predicate: predicate)).count == expected.count, comment)
    }

    static func value(_ input: Variable) -> PredicateExpressions.KeyPath<Variable, Int> {
        PredicateExpressions.KeyPath(root: input, keyPath: \SensorSample.value)
    }

    static func either(_ lhs: some StandardPredicateExpression<Bool>, _ rhs: some StandardPredicateExpression<Bool>) -> any StandardPredicateExpression<Bool> {
        PredicateExpressions.Disjunction(lhs: lhs, rhs: rhs)
    }

    static func both(_ lhs: some StandardPredicateExpression<Bool>, _ rhs: some StandardPredicateExpression<Bool>) -> any StandardPredicateExpression<Bool> {
        PredicateExpressions.Conjunction(lhs: lhs, rhs: rhs)
    }

    static func not(_ operand: some StandardPredicateExpression<Bool>) -> any StandardPredicateExpression<Bool> {
        PredicateExpressions.Negation(operand)
    }

    static func choice(_ test: some StandardPredicateExpression<Bool>, _ yes: some StandardPredicateExpression<Bool>, _ no: some StandardPredicateExpression<Bool>) -> any StandardPredicateExpression<Bool> {
        PredicateExpressions.Conditional(test: test, trueBranch: yes, falseBranch: no)
    }

    @Test(arguments: Backend.allCases) func thousandsOfConditionsJoinedByOr(_ backend: Backend) throws {
        let (store, context) = try samples(backend)
        _ = store
        // The even numbers below 2,000, some twice: half the rows match. (1,500 conditions are
        // more than SQLite's default expression depth, 1,000.)
        let predicate = Self.valueIsAnyOf((0..<1_500).map { $0 * 14 % 2_000 })
        try expectSwiftsAnswer(predicate, in: context, "1,500 conditions joined by ||")
    }

    @Test(arguments: Backend.allCases) func thousandsOfConditionsJoinedByAnd(_ backend: Backend) throws {
        let (store, context) = try samples(backend)
        _ = store
        let predicate = Predicate<SensorSample>({ (input: Variable) -> any StandardPredicateExpression<Bool> in
            var expression: any StandardPredicateExpression<Bool> = PredicateExpressions.Value(true)
            for number in 0..<1_500 where number % 5 != 0 {
                expression = Self.both(expression, PredicateExpressions.NotEqual(lhs: Self.value(input), rhs: PredicateExpressions.Value(number)))
            }
            return expression
        })
        try expectSwiftsAnswer(predicate, in: context, "1,200 conditions joined by &&")
        // Deleting by it removes exactly those rows.
        try context.delete(model: SensorSample.self, where: predicate)
        try context.save()
        let left = try ModelContext(try store.container(SensorSample.self, backend: backend)).fetch(FetchDescriptor<SensorSample>())
        #expect(left.count == 64, "the 80 samples but the 16 multiples of 5")
        #expect(left.allSatisfy { $0.value % 5 != 0 })
    }

    @Test(arguments: Backend.allCases) func deepNesting(_ backend: Backend) throws {
        let (store, context) = try samples(backend)
        _ = store
        for depth in [8, 16, 25, 40, 150] {
            let negations = Predicate<SensorSample>({ (input: Variable) -> any StandardPredicateExpression<Bool> in
                var expression: any StandardPredicateExpression<Bool> = PredicateExpressions.Equal(
                    lhs: PredicateExpressions.KeyPath(root: input, keyPath: \SensorSample.note), rhs: PredicateExpressions.Value(Optional("n5")))
                for _ in 0..<depth { expression = Self.not(expression) }
                return expression
            })
            try expectSwiftsAnswer(negations, in: context, "\(depth) negations")
            let choices = Predicate<SensorSample>({ (input: Variable) -> any StandardPredicateExpression<Bool> in
                var expression: any StandardPredicateExpression<Bool> = PredicateExpressions.Equal(
                    lhs: PredicateExpressions.KeyPath(root: input, keyPath: \SensorSample.note), rhs: PredicateExpressions.Value(Optional("n2")))
                for number in 0..<depth {
                    let test = PredicateExpressions.Equal(lhs: Self.value(input), rhs: PredicateExpressions.Value(number * 3))
                    expression = Self.choice(test, PredicateExpressions.Value(number % 2 == 0), expression)
                }
                return expression
            })
            try expectSwiftsAnswer(choices, in: context, "\(depth) nested conditionals")
        }
    }

    /// A list just longer than the parameters the backend's statements take: PostgreSQL's
    /// 65,535, and SQLite's default build's 32,766 (Debian's allows 250,000, where the list runs
    /// in SQL); the custom store evaluates in Swift whatever the length.
    static func overlongListLength(_ backend: Backend) -> Int {
        backend == .postgres ? 66_000 : 33_000
    }

    /// (The list's length is what is tried, not the rows': 60 rows keep the evaluation in Swift,
    /// each row against every item, short.)
    @Test(arguments: Backend.allCases) func listsLongerThanAStatementsParameters(_ backend: Backend) throws {
        let (store, context) = try samples(backend, count: 60)
        _ = store
        let length = Self.overlongListLength(backend)
        let labels = (0..<length).map { "r\($0 * 3)" }
        let values = (0..<length).map { $0 * 3 }
        try expectSwiftsAnswer(#Predicate<SensorSample> { labels.contains($0.label) }, in: context, "\(length) labels")
        try expectSwiftsAnswer(#Predicate<SensorSample> { values.contains($0.value) }, in: context, "\(length) values")
        try expectSwiftsAnswer(#Predicate<SensorSample> { values.contains($0.value) && $0.value < 100 && $0.note != nil }, in: context, "a long list and conditions the store evaluates")
        try expectSwiftsAnswer(#Predicate<SensorSample> { values.contains($0.value) || $0.note == "n1" }, in: context, "a long list or a condition")
    }

    /// Live queries over such predicates stay equal to a fresh fetch after each save.
    @MainActor @Test(arguments: Backend.allCases) func liveQueriesOverLargePredicates(_ backend: Backend) throws {
        let store = TemporaryStore()
        let container = try store.container(SensorSample.self, backend: backend)
        let writer = ModelContext(container)
        try Self.insertSamples(60, into: writer)
        let values = (0..<Self.overlongListLength(backend)).map { $0 * 3 }
        let chain = Self.valueIsAnyOf((0..<1_500).map { $0 * 7 % 1_000 })
        let observers = [
            try ResultsObserver(filterBy: #Predicate<SensorSample> { values.contains($0.value) }, sortBy: [SortDescriptor(\.value)], modelContainer: container),
            try ResultsObserver(filterBy: chain, sortBy: [SortDescriptor(\.value)], modelContainer: container),
        ]
        for round in 0..<TestCounts.count(quick: 2, full: 4) {
            let rows = try writer.fetch(FetchDescriptor<SensorSample>(sortBy: [SortDescriptor(\.value)]))
            writer.insert(SensorSample(label: "new\(round)", value: 100 + round * 7, note: nil))
            rows[round * 10].value += 1
            writer.delete(rows[round * 10 + 1])
            try writer.save()
            let checker = ModelContext(container)
            for observer in observers {
                let expected = try checker.fetch(observer.fetchDescriptor).map(\.value)
                #expect(observer.results.map(\.value) == expected, "round \(round)")
                #expect(!expected.isEmpty)
            }
        }
    }
}
