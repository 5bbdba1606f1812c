import Foundation

/// A random predicate over the fuzzing rows, as a tree that builds the same Foundation predicate
/// for the model (`FuzzRow`) and for plain values (`PlainRow`): the plain one gives the expected
/// results, the model one goes through the store.
public indirect enum BoolNode: CustomStringConvertible, Sendable {
    case literal(Bool)
    case flag
    case optFlagEquals(Bool?)
    case ints(PredicateExpressions.ComparisonOperator?, IntNode, IntNode)   // nil: ==
    case intsNotEqual(IntNode, IntNode)
    case doubles(PredicateExpressions.ComparisonOperator?, DoubleNode, DoubleNode)
    case texts(PredicateExpressions.ComparisonOperator?, TextNode, TextNode)
    case optionalTexts(equal: Bool, OptionalTextNode, OptionalTextNode)
    case optIntEquals(Int?)
    case bools(equal: Bool, BoolNode, BoolNode)
    case and(BoolNode, BoolNode)
    case or(BoolNode, BoolNode)
    case not(BoolNode)
    case ternary(BoolNode, BoolNode, BoolNode)
    case tagsIsEmpty
    case tagsContains(String)
    case itemsIsEmpty
    case itemsContain(ItemTest)
    case itemsAllSatisfy(ItemTest)
    case ownerIsNil(Bool)
    /// `$0.owner.flatMap { owner in test } ?? fallback`
    case ownerFlatMap(OwnerTest, fallback: Bool)
    /// `($0.optFlag ?? b)`
    case optFlagOr(BoolNode)
    case textContains(TextNode, String)
    case textStarts(TextNode, String)
    /// `lhs == rhs` or `lhs != rhs` of two `Bool?` values: SQL's unknown against Swift's `nil`.
    case optionalBools(equal: Bool, OptionalBoolNode, OptionalBoolNode)
    /// `list.contains($0.optInt)` with a list of optionals, with or without `nil` in it.
    case optIntsContain([Int?])
    /// `list.contains($0.optText)` with a list of optionals, with or without `nil` in it.
    case optTextsContain([String?])

    public var description: String {
        switch self {
        case .literal(let value): "\(value)"
        case .flag: "$0.flag"
        case .optFlagEquals(let value): "$0.optFlag == \(value.map { "\($0)" } ?? "nil")"
        case .ints(let op, let l, let r): "(\(l) \(op.map(Self.symbol) ?? "==") \(r))"
        case .intsNotEqual(let l, let r): "(\(l) != \(r))"
        case .doubles(let op, let l, let r): "(\(l) \(op.map(Self.symbol) ?? "==") \(r))"
        case .texts(let op, let l, let r): "(\(l) \(op.map(Self.symbol) ?? "==") \(r))"
        case .optionalTexts(let equal, let l, let r): "(\(l) \(equal ? "==" : "!=") \(r))"
        case .optIntEquals(let value): "$0.optInt == \(value.map { "\($0)" } ?? "nil")"
        case .bools(let equal, let l, let r): "(\(l) \(equal ? "==" : "!=") \(r))"
        case .and(let l, let r): "(\(l) && \(r))"
        case .or(let l, let r): "(\(l) || \(r))"
        case .not(let b): "!\(b)"
        case .ternary(let t, let a, let b): "(\(t) ? \(a) : \(b))"
        case .tagsIsEmpty: "$0.tags.isEmpty"
        case .tagsContains(let tag): "$0.tags.contains(\(tag.debugDescription))"
        case .itemsIsEmpty: "$0.items.isEmpty"
        case .itemsContain(let test): "$0.items.contains { \(test) }"
        case .itemsAllSatisfy(let test): "$0.items.allSatisfy { \(test) }"
        case .ownerIsNil(let isNil): "$0.owner \(isNil ? "==" : "!=") nil"
        case .ownerFlatMap(let test, let fallback): "($0.owner.flatMap { \(test) } ?? \(fallback))"
        case .optFlagOr(let b): "($0.optFlag ?? \(b))"
        case .textContains(let t, let s): "\(t).contains(\(s.debugDescription))"
        case .textStarts(let t, let s): "\(t).starts(with: \(s.debugDescription))"
        case .optionalBools(let equal, let l, let r): "(\(l) \(equal ? "==" : "!=") \(r))"
        case .optIntsContain(let list): "\(list).contains($0.optInt)"
        case .optTextsContain(let list): "\(list).contains($0.optText)"
        }
    }

    static func symbol(_ op: PredicateExpressions.ComparisonOperator) -> String {
        switch op {
        case .lessThan: "<"
        case .lessThanOrEqual: "<="
        case .greaterThan: ">"
        case .greaterThanOrEqual: ">="
        @unknown default: "?"
        }
    }
}

/// An `Int`-valued node.
public indirect enum IntNode: CustomStringConvertible, Sendable {
    case literal(Int)
    case int
    case tagsCount
    case itemsCount
    case counts
    case optIntOr(IntNode)
    case ownerRankOr(Int)
    case ternary(BoolNode, IntNode, IntNode)

    public var description: String {
        switch self {
        case .literal(let value): "\(value)"
        case .int: "$0.int"
        case .tagsCount: "$0.tags.count"
        case .itemsCount: "$0.items.count"
        case .counts: "($0.tags.count + $0.items.count)"
        case .optIntOr(let n): "($0.optInt ?? \(n))"
        case .ownerRankOr(let value): "($0.owner?.rank ?? \(value))"
        case .ternary(let t, let a, let b): "(\(t) ? \(a) : \(b))"
        }
    }
}

/// A `Double`-valued node.
public enum DoubleNode: CustomStringConvertible, Sendable {
    case literal(Double)
    case double

    public var description: String {
        switch self {
        case .literal(let value): "\(value)"
        case .double: "$0.double"
        }
    }
}

/// A `String`-valued node.
public indirect enum TextNode: CustomStringConvertible, Sendable {
    case literal(String)
    case text
    case optTextOr(String)
    case ownerNameOr(String)
    case ternary(BoolNode, TextNode, TextNode)

    public var description: String {
        switch self {
        case .literal(let value): value.debugDescription
        case .text: "$0.text"
        case .optTextOr(let value): "($0.optText ?? \(value.debugDescription))"
        case .ownerNameOr(let value): "($0.owner?.name ?? \(value.debugDescription))"
        case .ternary(let t, let a, let b): "(\(t) ? \(a) : \(b))"
        }
    }
}

/// A `String?`-valued node.
public enum OptionalTextNode: CustomStringConvertible, Sendable {
    case literal(String?)
    case optText
    case ownerName
    case firstTag
    case lastTag

    public var description: String {
        switch self {
        case .literal(let value): value?.debugDescription ?? "nil"
        case .optText: "$0.optText"
        case .ownerName: "$0.owner?.name"
        case .firstTag: "$0.tags.first"
        case .lastTag: "$0.tags.last"
        }
    }
}

/// A `Bool?`-valued node: an optional flag, or `Optional.flatMap` whose closure yields a `Bool`.
public indirect enum OptionalBoolNode: CustomStringConvertible, Sendable {
    case literal(Bool?)
    case optFlag
    /// `$0.optText.flatMap { _ in test }`
    case optTextFlatMap(BoolNode)
    /// `$0.optInt.flatMap { _ in test }`
    case optIntFlatMap(BoolNode)
    /// `$0.owner.flatMap { test }`: `nil` without an owner.
    case ownerFlatMap(OwnerTest)

    public var description: String {
        switch self {
        case .literal(let value): value.map { "\($0)" } ?? "nil"
        case .optFlag: "$0.optFlag"
        case .optTextFlatMap(let b): "$0.optText.flatMap { _ in \(b) }"
        case .optIntFlatMap(let b): "$0.optInt.flatMap { _ in \(b) }"
        case .ownerFlatMap(let test): "$0.owner.flatMap { \(test) }"
        }
    }
}

/// A test of one item, inside `contains(where:)` or `allSatisfy`.
public indirect enum ItemTest: CustomStringConvertible, Sendable {
    case titleEquals(String)
    case scoreAbove(Int)
    /// A test that ignores the item and reads the row: `{ _ in $0.flag }`.
    case row(BoolNode)
    case and(ItemTest, ItemTest)
    case not(ItemTest)

    public var description: String {
        switch self {
        case .titleEquals(let value): "$1.title == \(value.debugDescription)"
        case .scoreAbove(let value): "$1.score > \(value)"
        case .row(let b): "\(b)"
        case .and(let l, let r): "(\(l) && \(r))"
        case .not(let t): "!\(t)"
        }
    }
}

/// A test of the owner inside `flatMap`.
public indirect enum OwnerTest: CustomStringConvertible, Sendable {
    case nameEquals(String)
    case rankBelow(Int)
    /// A body that ignores the owner: `{ _ in $0.flag }`.
    case row(BoolNode)

    public var description: String {
        switch self {
        case .nameEquals(let value): "$1.name == \(value.debugDescription)"
        case .rankBelow(let value): "$1.rank < \(value)"
        case .row(let b): "_ in \(b)"
        }
    }
}
