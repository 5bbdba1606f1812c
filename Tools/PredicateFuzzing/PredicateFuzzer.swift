import Foundation
import OpenSwiftData

/// A small, fast, seedable random number generator (SplitMix64), so that a seed names a run.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random rows and random predicates over them, with the edge values stores get wrong.
public struct PredicateFuzzer {
    public var random: SplitMix64
    /// The deepest a predicate's tree goes.
    public var maximumDepth: Int

    public init(seed: UInt64, maximumDepth: Int = 4) {
        random = SplitMix64(seed: seed)
        self.maximumDepth = maximumDepth
    }

    static let ints = [Int.min, Int.max, 0, -1, 1, 2, 3, 9_007_199_254_740_993, -42]
    static let doubles = [Double.nan, .infinity, -.infinity, -0.0, 0.0, 1.5, 9_007_199_254_740_993.0, -1e300, 2]
    static let texts = ["", "a", "B", "b", "é", "e\u{301}", "Ab", String(repeating: "x", count: 300), "日本", "\u{212A}", "xé", "xe\u{301}", "xf", "x\u{212A}1"]
    /// Texts predicates compare with: the stored ones, and text holding U+0000, which PostgreSQL
    /// cannot store or bind but which still orders between stored values.
    static let literalTexts = texts + ["a\u{0}", "\u{0}", "b\u{0}x"]
    static let tagSets: [[String]] = [[], ["a"], ["b", "a"], ["é"], ["e\u{301}", "x"]]
    static let titles = ["", "x", "é", "e\u{301}", "ax"]

    mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    /// Rows with every edge value, some owners and items.
    public mutating func rows(count: Int) -> [PlainRow] {
        let owners = (0..<4).map { PlainOwner(name: Self.texts[$0 % Self.texts.count], rank: Self.ints[$0 + 2]) }
        return (0..<count).map { index in
            PlainRow(
                index: index, int: pick(Self.ints), optInt: chance(30) ? nil : pick(Self.ints), double: pick(Self.doubles),
                text: pick(Self.texts), optText: chance(30) ? nil : pick(Self.texts), flag: chance(50),
                optFlag: chance(30) ? nil : chance(50), tags: pick(Self.tagSets), owner: chance(30) ? nil : pick(owners),
                items: (0..<Int.random(in: 0...3, using: &random)).map { _ in PlainItem(title: pick(Self.titles), score: pick(Self.ints)) })
        }
    }

    /// A random Boolean predicate tree.
    public mutating func predicate() -> BoolNode { bool(depth: 0) }

    mutating func bool(depth: Int) -> BoolNode {
        let leaf = depth >= maximumDepth
        switch Int.random(in: 0..<(leaf ? 14 : 27), using: &random) {
        case 0: return .literal(chance(50))
        case 1: return .flag
        case 2: return .optFlagEquals(chance(30) ? nil : chance(50))
        case 3: return .optIntEquals(chance(30) ? nil : pick(Self.ints))
        case 4: return .tagsIsEmpty
        case 5: return .tagsContains(pick(Self.literalTexts))
        case 6: return .itemsIsEmpty
        case 7: return .ownerIsNil(chance(50))
        case 8: return .ints(comparison(), int(depth: leaf ? maximumDepth : depth + 1), .literal(pick(Self.ints)))
        case 9: return .doubles(comparison(), .double, .literal(pick(Self.doubles)))
        case 10: return .texts(comparison(), text(depth: maximumDepth), .literal(pick(Self.literalTexts)))
        case 11: return .optionalTexts(equal: chance(50), optionalText(), optionalText())
        case 12: return .optIntsContain(optionalList(Self.ints))
        case 13: return .optTextsContain(optionalList(Self.literalTexts))
        case 14: return .and(bool(depth: depth + 1), bool(depth: depth + 1))
        case 15: return .or(bool(depth: depth + 1), bool(depth: depth + 1))
        case 16: return .not(bool(depth: depth + 1))
        case 17: return .ternary(bool(depth: depth + 1), bool(depth: depth + 1), bool(depth: depth + 1))
        case 18: return .bools(equal: chance(50), bool(depth: depth + 1), bool(depth: depth + 1))
        case 19: return .itemsContain(item(depth: depth + 1))
        case 20: return .itemsAllSatisfy(item(depth: depth + 1))
        case 21: return .ownerFlatMap(owner(depth: depth + 1), fallback: chance(50))
        case 22: return .optFlagOr(bool(depth: depth + 1))
        case 23: return .intsNotEqual(int(depth: depth + 1), int(depth: depth + 1))
        case 24: return .textContains(text(depth: depth + 1), pick(Self.literalTexts))
        case 25: return .optionalBools(equal: chance(50), optionalBool(depth: depth + 1), optionalBool(depth: depth + 1))
        default: return .textStarts(text(depth: depth + 1), pick(Self.texts))
        }
    }

    /// A `Bool?`: a literal (`nil`, `true`, `false`), the optional flag, or a `flatMap` over an
    /// optional property or the to-one relationship whose closure yields a `Bool`.
    mutating func optionalBool(depth: Int) -> OptionalBoolNode {
        let leaf = depth >= maximumDepth
        switch Int.random(in: 0..<(leaf ? 3 : 6), using: &random) {
        case 0: return .literal(chance(40) ? nil : chance(50))
        case 1: return .optFlag
        case 2: return .ownerFlatMap(owner(depth: maximumDepth))
        case 3: return .optTextFlatMap(bool(depth: depth + 1))
        case 4: return .optIntFlatMap(bool(depth: depth + 1))
        default: return .ownerFlatMap(owner(depth: depth + 1))
        }
    }

    /// A few of `values` as optionals, with `nil` among them half the time.
    mutating func optionalList<T>(_ values: [T]) -> [T?] {
        var list: [T?] = (0..<Int.random(in: 0...3, using: &random)).map { _ in pick(values) }
        if chance(50) { list.insert(nil, at: Int.random(in: 0...list.count, using: &random)) }
        return list
    }

    mutating func comparison() -> PredicateExpressions.ComparisonOperator? {
        pick([nil, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual])
    }

    mutating func int(depth: Int) -> IntNode {
        let leaf = depth >= maximumDepth
        switch Int.random(in: 0..<(leaf ? 6 : 8), using: &random) {
        case 0: return .literal(pick(Self.ints))
        case 1: return .int
        case 2: return .tagsCount
        case 3: return .itemsCount
        case 4: return .counts
        case 5: return .ownerRankOr(pick(Self.ints))
        case 6: return .optIntOr(int(depth: depth + 1))
        default: return .ternary(bool(depth: depth + 1), int(depth: depth + 1), int(depth: depth + 1))
        }
    }

    mutating func text(depth: Int) -> TextNode {
        let leaf = depth >= maximumDepth
        switch Int.random(in: 0..<(leaf ? 4 : 5), using: &random) {
        case 0: return .literal(pick(Self.literalTexts))
        case 1: return .text
        case 2: return .optTextOr(pick(Self.literalTexts))
        case 3: return .ownerNameOr(pick(Self.literalTexts))
        default: return .ternary(bool(depth: depth + 1), text(depth: depth + 1), text(depth: depth + 1))
        }
    }

    mutating func optionalText() -> OptionalTextNode {
        pick([.literal(nil), .literal(pick(Self.literalTexts)), .optText, .ownerName, .firstTag, .lastTag])
    }

    mutating func item(depth: Int) -> ItemTest {
        switch Int.random(in: 0..<(depth >= maximumDepth ? 2 : 5), using: &random) {
        case 0: return .titleEquals(pick(Self.titles))
        case 1: return .scoreAbove(pick(Self.ints))
        case 2: return .row(bool(depth: depth + 1))
        case 3: return .and(item(depth: depth + 1), item(depth: depth + 1))
        default: return .not(item(depth: depth + 1))
        }
    }

    mutating func owner(depth: Int) -> OwnerTest {
        switch Int.random(in: 0..<(depth >= maximumDepth ? 2 : 3), using: &random) {
        case 0: return .nameEquals(pick(Self.literalTexts))
        case 1: return .rankBelow(pick(Self.ints))
        default: return .row(bool(depth: depth + 1))
        }
    }
}

/// One differential run: random rows saved to a store, random predicates fetched from it and
/// evaluated on the plain rows.
public struct PredicateFuzzRun {
    /// A predicate whose fetched rows differ from `evaluate`'s, or whose aggregates differ from
    /// those of the rows `evaluate` selects.
    public struct Mismatch: CustomStringConvertible, Sendable {
        public let predicate: String
        public let expected: Set<Int>
        public let fetched: Set<Int>
        /// The aggregate that differs, when the rows agree.
        public var aggregate: String?
        public var description: String {
            if let aggregate { return "\(predicate): \(aggregate)" }
            return "\(predicate): \(fetched.count) fetched, \(expected.count) expected; only fetched \(fetched.subtracting(expected).sorted().prefix(5)), only expected \(expected.subtracting(fetched).sorted().prefix(5))"
        }
    }

    public let seed: UInt64
    public private(set) var checked = 0
    public private(set) var mismatches: [Mismatch] = []

    /// The schema of the rows a run saves.
    public static let schema = Schema([FuzzRow.self, FuzzOwner.self, FuzzItem.self])

    /// Saves `rowCount` random rows to a store at `url` (or in memory), then checks `count`
    /// random predicates.
    public init(seed: UInt64, count: Int, rowCount: Int = 200, maximumDepth: Int = 4, url: URL? = nil) throws {
        let configuration = url.map { ModelConfiguration(url: $0) } ?? ModelConfiguration(isStoredInMemoryOnly: true)
        try self.init(seed: seed, count: count, rowCount: rowCount, maximumDepth: maximumDepth, configuration: configuration)
    }

    /// Saves `rowCount` random rows to the store a configuration describes (an empty one), then
    /// checks `count` random predicates.
    public init(seed: UInt64, count: Int, rowCount: Int = 200, maximumDepth: Int = 4, configuration: any DataStoreConfiguration) throws {
        self.seed = seed
        var fuzzer = PredicateFuzzer(seed: seed, maximumDepth: maximumDepth)
        let plain = fuzzer.rows(count: rowCount)
        let container = try ModelContainer(for: Self.schema, configurations: [configuration])
        do {
            let context = ModelContext(container)
            var owners: [String: FuzzOwner] = [:]
            for row in plain {
                let model = FuzzRow(row)
                context.insert(model)
                if let owner = row.owner {
                    let key = "\(owner.name)|\(owner.rank)"
                    let related = owners[key] ?? FuzzOwner(name: owner.name, rank: owner.rank)
                    owners[key] = related
                    model.owner = related
                }
                model.items = row.items.map { FuzzItem(title: $0.title, score: $0.score) }
            }
            try context.save()
        }
        let context = ModelContext(container)
        var previous: (node: BoolNode, plain: Predicate<PlainRow>, model: Predicate<FuzzRow>)?
        for _ in 0..<count {
            let node = fuzzer.predicate()
            let expectedPredicate = PredicateBuilder<PlainRow, PlainOwner, PlainItem>.predicate(node, paths: .plain)
            let modelPredicate = PredicateBuilder<FuzzRow, FuzzOwner, FuzzItem>.predicate(node, paths: .models)
            let expected = Set(plain.filter { (try? expectedPredicate.evaluate($0)) ?? false }.map(\.index))
            let fetched = Set(try context.fetch(FetchDescriptor(predicate: modelPredicate)).map(\.index))
            if checked % 3 == 1, let earlier = previous {
                mismatches += try Self.compositionMismatches(
                    context, plain, (earlier.node, earlier.plain, earlier.model), (node, expectedPredicate, modelPredicate))
            }
            previous = (node, expectedPredicate, modelPredicate)
            checked += 1
            if fetched != expected {
                mismatches.append(Mismatch(predicate: "\(node)", expected: expected, fetched: fetched))
            } else if let difference = try Self.aggregateDifference(context, FetchDescriptor(predicate: modelPredicate), plain.filter { expected.contains($0.index) }) {
                mismatches.append(Mismatch(predicate: "\(node)", expected: expected, fetched: fetched, aggregate: difference))
            } else if checked % 4 == 0, let difference = try Self.updateDifference(context, modelPredicate, mark: checked, expected: expected) {
                mismatches.append(Mismatch(predicate: "\(node)", expected: expected, fetched: fetched, aggregate: difference))
            }
        }
    }

    /// Checks predicates combined at run time (`&&`, `||`, `!`): each selects in the store exactly
    /// the rows the same combination of the plain predicates selects by `evaluate`, which agrees
    /// with combining the two answers in Swift wherever neither throws; each also describes itself.
    static func compositionMismatches(
        _ context: ModelContext, _ rows: [PlainRow],
        _ first: (node: BoolNode, plain: Predicate<PlainRow>, model: Predicate<FuzzRow>),
        _ second: (node: BoolNode, plain: Predicate<PlainRow>, model: Predicate<FuzzRow>)
    ) throws -> [Mismatch] {
        let combinations: [(String, Predicate<PlainRow>, Predicate<FuzzRow>, (Bool, Bool) -> Bool)] = [
            ("(\(first.node)) && (\(second.node))", first.plain && second.plain, first.model && second.model, { $0 && $1 }),
            ("(\(first.node)) || (\(second.node))", first.plain || second.plain, first.model || second.model, { $0 || $1 }),
            ("!(\(second.node))", !second.plain, !second.model, { _, second in !second }),
        ]
        var mismatches: [Mismatch] = []
        for (label, plain, model, combine) in combinations {
            _ = model.description
            var expected = Set<Int>()
            for row in rows {
                let combined = try? plain.evaluate(row)
                if combined == true { expected.insert(row.index) }
                if let left = try? first.plain.evaluate(row), let right = try? second.plain.evaluate(row), combined != combine(left, right) {
                    mismatches.append(Mismatch(predicate: label, expected: [], fetched: [], aggregate: "row \(row.index): combined \(String(describing: combined)), parts \(left), \(right)"))
                    return mismatches
                }
            }
            let fetched = Set(try context.fetch(FetchDescriptor(predicate: model)).map(\.index))
            if fetched != expected { mismatches.append(Mismatch(predicate: label, expected: expected, fetched: fetched)) }
        }
        return mismatches
    }

    /// Marks the rows a predicate selects with an update by predicate and compares them, and the
    /// count the update returns, with the rows `evaluate` selects; `nil` when they agree.
    static func updateDifference(_ context: ModelContext, _ predicate: Predicate<FuzzRow>, mark: Int, expected: Set<Int>) throws -> String? {
        let count = try context.update(model: FuzzRow.self, where: predicate, set: \.mark, to: mark)
        let marked = Set(try context.fetch(FetchDescriptor(predicate: #Predicate<FuzzRow> { $0.mark == mark })).map(\.index))
        guard count != expected.count || marked != expected else { return nil }
        return "update: \(count) updated, \(marked.count) marked (only marked \(marked.subtracting(expected).sorted().prefix(5))), \(expected.count) expected"
    }

    /// The first aggregate of the rows a descriptor selects that differs from the same reduction
    /// of the plain rows `evaluate` selects (exact sums of integers, often beyond `Int`, and
    /// extremes of integers and doubles, which no order of the rows changes; the sum of doubles,
    /// which the order of the rows rounds, within that rounding), or `nil`.
    static func aggregateDifference(_ context: ModelContext, _ descriptor: FetchDescriptor<FuzzRow>, _ rows: [PlainRow]) throws -> String? {
        let ints = rows.map(\.int)
        let optionalInts = rows.compactMap(\.optInt)
        let doubles = rows.map(\.double).filter { !$0.isNaN }
        /// The exact sum when it fits in `Int`, as the aggregate promises, or "overflow".
        func exactSum(_ values: [Int]) -> String {
            let total = values.reduce(Decimal(0)) { $0 + Decimal($1) }
            return Int("\(total)").map { "\($0)" } ?? "overflow"
        }
        func unsignedZero(_ value: Double) -> Double { value == 0 ? 0 : value }
        func storeSum(_ sum: () throws -> Int) throws -> String {
            do {
                return "\(try sum())"
            } catch let error as SwiftDataError where error == .arithmeticOverflow {
                return "overflow"
            }
        }
        let checks: [(String, String, String)] = [
            ("sum of int", try storeSum { try context.sum(of: \.int, in: descriptor) }, exactSum(ints)),
            ("sum of optInt", try storeSum { try context.sum(of: \.optInt, in: descriptor) }, exactSum(optionalInts)),
            ("minimum of int", "\(String(describing: try context.minimum(of: \.int, in: descriptor)))", "\(String(describing: ints.min()))"),
            ("maximum of optInt", "\(String(describing: try context.maximum(of: \.optInt, in: descriptor)))", "\(String(describing: optionalInts.max()))"),
            // Of 0.0 and -0.0 (equal), the maximum is the first in the fetch's order, which
            // without a sort is the store's (PostgreSQL moves updated rows): either is right.
            ("maximum of double", "\(String(describing: try context.maximum(of: \.double, in: descriptor).map(unsignedZero)))",
             "\(String(describing: (doubles.max() ?? (rows.isEmpty ? nil : Double.nan)).map(unsignedZero)))"),
        ]
        // Of text Swift calls equal ("é" precomposed and decomposed), either is the extreme.
        let texts = rows.map(\.text)
        let (smallestText, largestText) = (try context.minimum(of: \.text, in: descriptor), try context.maximum(of: \.text, in: descriptor))
        if smallestText != texts.min() || largestText != texts.max() {
            return "extremes of text: \(String(reflecting: smallestText)), \(String(reflecting: largestText)) from the store, \(String(reflecting: texts.min())), \(String(reflecting: texts.max())) expected"
        }
        if let difference = checks.first(where: { $0.1 != $0.2 }) {
            return "\(difference.0): \(difference.1) from the store, \(difference.2) expected"
        }
        let summed = try context.sum(of: \.double, in: descriptor)
        let reduced = rows.map(\.double).reduce(0, +)
        guard !sumsAgree(summed, reduced, rows.map(\.double)) else { return nil }
        return "sum of double: \(summed) from the store, \(reduced) expected (in another order)"
    }

    /// Whether two sums of `values` in different orders agree: both NaN, or equal, or finite and
    /// apart by no more than the rounding of one addition per value can account for.
    static func sumsAgree(_ lhs: Double, _ rhs: Double, _ values: [Double]) -> Bool {
        if lhs.isNaN || rhs.isNaN { return lhs.isNaN && rhs.isNaN }
        guard lhs != rhs else { return true }
        guard lhs.isFinite && rhs.isFinite else { return false }
        let magnitude = values.reduce(0) { $0 + abs($1) }
        return abs(lhs - rhs) <= Double(values.count) * magnitude.ulp
    }
}
