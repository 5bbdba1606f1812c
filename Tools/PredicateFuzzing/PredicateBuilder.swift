import Foundation

/// The key paths of the fuzzing rows, for the model classes or the plain values.
public struct FuzzKeyPaths<Row, Owner: Equatable, Item>: Sendable {
    let int: any KeyPath<Row, Int> & Sendable
    let optInt: any KeyPath<Row, Int?> & Sendable
    let double: any KeyPath<Row, Double> & Sendable
    let text: any KeyPath<Row, String> & Sendable
    let optText: any KeyPath<Row, String?> & Sendable
    let flag: any KeyPath<Row, Bool> & Sendable
    let optFlag: any KeyPath<Row, Bool?> & Sendable
    let tags: any KeyPath<Row, [String]> & Sendable
    let owner: any KeyPath<Row, Owner?> & Sendable
    let items: any KeyPath<Row, [Item]> & Sendable
    let ownerName: any KeyPath<Owner, String> & Sendable
    let ownerRank: any KeyPath<Owner, Int> & Sendable
    let itemTitle: any KeyPath<Item, String> & Sendable
    let itemScore: any KeyPath<Item, Int> & Sendable
}

extension FuzzKeyPaths where Row == FuzzRow, Owner == FuzzOwner, Item == FuzzItem {
    /// The model classes' key paths.
    public static let models = FuzzKeyPaths(
        int: \.int, optInt: \.optInt, double: \.double, text: \.text, optText: \.optText, flag: \.flag,
        optFlag: \.optFlag, tags: \.tags, owner: \.owner, items: \.items, ownerName: \.name, ownerRank: \.rank,
        itemTitle: \.title, itemScore: \.score)
}

extension FuzzKeyPaths where Row == PlainRow, Owner == PlainOwner, Item == PlainItem {
    /// The plain values' key paths.
    public static let plain = FuzzKeyPaths(
        int: \.int, optInt: \.optInt, double: \.double, text: \.text, optText: \.optText, flag: \.flag,
        optFlag: \.optFlag, tags: \.tags, owner: \.owner, items: \.items, ownerName: \.name, ownerRank: \.rank,
        itemTitle: \.title, itemScore: \.score)
}


public typealias AnyPredicateExpression<T> = any StandardPredicateExpression<T>

/// Builds a node into a Foundation predicate over one root type.
public struct PredicateBuilder<Row, Owner: Equatable, Item> {
    let paths: FuzzKeyPaths<Row, Owner, Item>
    let row: PredicateExpressions.Variable<Row>

    /// The predicate a node stands for, over `Row`.
    public static func predicate(_ node: BoolNode, paths: FuzzKeyPaths<Row, Owner, Item>) -> Predicate<Row> {
        Predicate<Row> { row in PredicateBuilder(paths: paths, row: row).bool(node) }
    }

    func bool(_ node: BoolNode) -> AnyPredicateExpression<Bool> {
        switch node {
        case .literal(let value): return PredicateExpressions.Value(value)
        case .flag: return key(row, paths.flag)
        case .optFlagEquals(let value): return equal(key(row, paths.optFlag), PredicateExpressions.Value(value))
        case .ints(let op, let l, let r): return compare(op, int(l), int(r))
        case .intsNotEqual(let l, let r): return notEqual(int(l), int(r))
        case .doubles(let op, let l, let r): return compare(op, double(l), double(r))
        case .texts(let op, let l, let r): return compare(op, text(l), text(r))
        case .optionalTexts(let isEqual, let l, let r):
            return isEqual ? equal(optionalText(l), optionalText(r)) : notEqual(optionalText(l), optionalText(r))
        case .optIntEquals(let value): return equal(key(row, paths.optInt), PredicateExpressions.Value(value))
        case .bools(let isEqual, let l, let r): return isEqual ? equal(bool(l), bool(r)) : notEqual(bool(l), bool(r))
        case .and(let l, let r): return conjunction(bool(l), bool(r))
        case .or(let l, let r): return disjunction(bool(l), bool(r))
        case .not(let b): return negation(bool(b))
        case .ternary(let t, let a, let b): return conditional(bool(t), bool(a), bool(b))
        case .tagsIsEmpty: return key(key(row, paths.tags), \[String].isEmpty)
        case .tagsContains(let tag): return contains(key(row, paths.tags), tag)
        case .itemsIsEmpty: return key(key(row, paths.items), \[Item].isEmpty)
        case .itemsContain(let test): return containsWhere(key(row, paths.items)) { item(test, $0) }
        case .itemsAllSatisfy(let test): return allSatisfy(key(row, paths.items)) { item(test, $0) }
        case .ownerIsNil(let isNil):
            let owner = key(row, paths.owner)
            return isNil ? equal(owner, PredicateExpressions.NilLiteral<Owner>()) : notEqual(owner, PredicateExpressions.NilLiteral<Owner>())
        case .ownerFlatMap(let test, let fallback):
            return coalesce(flatMap(key(row, paths.owner)) { owner(test, $0) }, PredicateExpressions.Value(fallback))
        case .optFlagOr(let b): return coalesce(key(row, paths.optFlag), bool(b))
        case .textContains(let t, let s): return textContains(text(t), s)
        case .textStarts(let t, let s): return textStarts(text(t), s)
        case .optionalBools(let isEqual, let l, let r):
            return isEqual ? equal(optionalBool(l), optionalBool(r)) : notEqual(optionalBool(l), optionalBool(r))
        case .optIntsContain(let list): return contains(list, key(row, paths.optInt))
        case .optTextsContain(let list): return contains(list, key(row, paths.optText))
        }
    }

    func optionalBool(_ node: OptionalBoolNode) -> AnyPredicateExpression<Bool?> {
        switch node {
        case .literal(let value): PredicateExpressions.Value(value)
        case .optFlag: key(row, paths.optFlag)
        case .optTextFlatMap(let b): flatMap(key(row, paths.optText)) { (_: PredicateExpressions.Variable<String>) in bool(b) }
        case .optIntFlatMap(let b): flatMap(key(row, paths.optInt)) { (_: PredicateExpressions.Variable<Int>) in bool(b) }
        case .ownerFlatMap(let test): flatMap(key(row, paths.owner)) { owner(test, $0) }
        }
    }

    func int(_ node: IntNode) -> AnyPredicateExpression<Int> {
        switch node {
        case .literal(let value): PredicateExpressions.Value(value)
        case .int: key(row, paths.int)
        case .tagsCount: key(key(row, paths.tags), \[String].count)
        case .itemsCount: key(key(row, paths.items), \[Item].count)
        case .counts: sum(key(key(row, paths.tags), \[String].count), key(key(row, paths.items), \[Item].count))
        case .optIntOr(let n): coalesce(key(row, paths.optInt), int(n))
        case .ownerRankOr(let value):
            coalesce(flatMap(key(row, paths.owner)) { key($0, paths.ownerRank) }, PredicateExpressions.Value(value))
        case .ternary(let t, let a, let b): conditional(bool(t), int(a), int(b))
        }
    }

    func double(_ node: DoubleNode) -> AnyPredicateExpression<Double> {
        switch node {
        case .literal(let value): PredicateExpressions.Value(value)
        case .double: key(row, paths.double)
        }
    }

    func text(_ node: TextNode) -> AnyPredicateExpression<String> {
        switch node {
        case .literal(let value): PredicateExpressions.Value(value)
        case .text: key(row, paths.text)
        case .optTextOr(let value): coalesce(key(row, paths.optText), PredicateExpressions.Value(value))
        case .ownerNameOr(let value):
            coalesce(flatMap(key(row, paths.owner)) { key($0, paths.ownerName) }, PredicateExpressions.Value(value))
        case .ternary(let t, let a, let b): conditional(bool(t), text(a), text(b))
        }
    }

    func optionalText(_ node: OptionalTextNode) -> AnyPredicateExpression<String?> {
        switch node {
        case .literal(let value): PredicateExpressions.Value(value)
        case .optText: key(row, paths.optText)
        case .ownerName: flatMap(key(row, paths.owner)) { key($0, paths.ownerName) }
        case .firstTag: key(key(row, paths.tags), \[String].first)
        case .lastTag: key(key(row, paths.tags), \[String].last)
        }
    }

    func item(_ test: ItemTest, _ item: PredicateExpressions.Variable<Item>) -> AnyPredicateExpression<Bool> {
        switch test {
        case .titleEquals(let value): equal(key(item, paths.itemTitle), PredicateExpressions.Value(value))
        case .scoreAbove(let value): compare(.greaterThan, key(item, paths.itemScore), PredicateExpressions.Value(value))
        case .row(let b): bool(b)
        case .and(let l, let r): conjunction(self.item(l, item), self.item(r, item))
        case .not(let t): negation(self.item(t, item))
        }
    }

    func owner(_ test: OwnerTest, _ owner: PredicateExpressions.Variable<Owner>) -> AnyPredicateExpression<Bool> {
        switch test {
        case .nameEquals(let value): equal(key(owner, paths.ownerName), PredicateExpressions.Value(value))
        case .rankBelow(let value): compare(.lessThan, key(owner, paths.ownerRank), PredicateExpressions.Value(value))
        case .row(let b): bool(b)
        }
    }
}

// MARK: Generic node makers, opening the existentials the builder works with.

private func key<R: StandardPredicateExpression, O>(_ root: R, _ path: any KeyPath<R.Output, O> & Sendable) -> AnyPredicateExpression<O> {
    PredicateExpressions.KeyPath(root: root, keyPath: path)
}

private func equal<L: StandardPredicateExpression, R: StandardPredicateExpression>(_ l: L, _ r: R) -> AnyPredicateExpression<Bool>
where L.Output == R.Output, L.Output: Equatable {
    PredicateExpressions.Equal(lhs: l, rhs: r)
}

private func notEqual<L: StandardPredicateExpression, R: StandardPredicateExpression>(_ l: L, _ r: R) -> AnyPredicateExpression<Bool>
where L.Output == R.Output, L.Output: Equatable {
    PredicateExpressions.NotEqual(lhs: l, rhs: r)
}

private func compare<L: StandardPredicateExpression, R: StandardPredicateExpression>(
    _ op: PredicateExpressions.ComparisonOperator?, _ l: L, _ r: R
) -> AnyPredicateExpression<Bool> where L.Output == R.Output, L.Output: Comparable {
    guard let op else { return PredicateExpressions.Equal(lhs: l, rhs: r) }
    return PredicateExpressions.Comparison(lhs: l, rhs: r, op: op)
}

private func conjunction<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(_ l: L, _ r: R) -> AnyPredicateExpression<Bool> {
    PredicateExpressions.Conjunction(lhs: l, rhs: r)
}

private func disjunction<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(_ l: L, _ r: R) -> AnyPredicateExpression<Bool> {
    PredicateExpressions.Disjunction(lhs: l, rhs: r)
}

private func negation<W: StandardPredicateExpression<Bool>>(_ w: W) -> AnyPredicateExpression<Bool> {
    PredicateExpressions.Negation(w)
}

private func conditional<T: StandardPredicateExpression<Bool>, A: StandardPredicateExpression, B: StandardPredicateExpression>(
    _ t: T, _ a: A, _ b: B
) -> AnyPredicateExpression<A.Output> where A.Output == B.Output {
    PredicateExpressions.Conditional(test: t, trueBranch: a, falseBranch: b)
}

private func coalesce<L: StandardPredicateExpression, R: StandardPredicateExpression>(_ l: L, _ r: R) -> AnyPredicateExpression<R.Output>
where L.Output == R.Output? {
    PredicateExpressions.NilCoalesce(lhs: l, rhs: r)
}

private func sum<L: StandardPredicateExpression<Int>, R: StandardPredicateExpression<Int>>(_ l: L, _ r: R) -> AnyPredicateExpression<Int> {
    PredicateExpressions.Arithmetic(lhs: l, rhs: r, op: .add)
}

private func contains<S: StandardPredicateExpression<[String]>>(_ sequence: S, _ element: String) -> AnyPredicateExpression<Bool> {
    PredicateExpressions.SequenceContains(sequence: sequence, element: PredicateExpressions.Value(element))
}

private func contains<E: Equatable & Codable & Sendable, S: StandardPredicateExpression<E>>(_ list: [E], _ element: S) -> AnyPredicateExpression<Bool> {
    PredicateExpressions.SequenceContains(sequence: PredicateExpressions.Value(list), element: element)
}

private func textContains<B: StandardPredicateExpression<String>>(_ base: B, _ other: String) -> AnyPredicateExpression<Bool> {
    PredicateExpressions.CollectionContainsCollection(base: base, other: PredicateExpressions.Value(other))
}

private func textStarts<B: StandardPredicateExpression<String>>(_ base: B, _ prefix: String) -> AnyPredicateExpression<Bool> {
    PredicateExpressions.SequenceStartsWith(base: base, prefix: PredicateExpressions.Value(prefix))
}

/// `sequence.contains { body($0) }`. The closure's expression type is only known once built, so
/// it is built once to learn its type, then again inside the node's own builder (with the node's
/// variable): both builds have the same type.
private func containsWhere<S: StandardPredicateExpression, E>(
    _ sequence: S, _ body: (PredicateExpressions.Variable<E>) -> AnyPredicateExpression<Bool>
) -> AnyPredicateExpression<Bool> where S.Output == [E] {
    func make<T: StandardPredicateExpression<Bool>>(_: T) -> AnyPredicateExpression<Bool> {
        PredicateExpressions.SequenceContainsWhere(sequence) { body($0) as! T }
    }
    return make(body(PredicateExpressions.Variable()))
}

/// `sequence.allSatisfy { body($0) }`, built as ``containsWhere(_:_:)``.
private func allSatisfy<S: StandardPredicateExpression, E>(
    _ sequence: S, _ body: (PredicateExpressions.Variable<E>) -> AnyPredicateExpression<Bool>
) -> AnyPredicateExpression<Bool> where S.Output == [E] {
    func make<T: StandardPredicateExpression<Bool>>(_: T) -> AnyPredicateExpression<Bool> {
        PredicateExpressions.SequenceAllSatisfy(sequence) { body($0) as! T }
    }
    return make(body(PredicateExpressions.Variable()))
}

/// `optional.flatMap { body($0) }`, built as ``containsWhere(_:_:)``.
private func flatMap<W: StandardPredicateExpression, Wrapped, O>(
    _ wrapped: W, _ body: (PredicateExpressions.Variable<Wrapped>) -> AnyPredicateExpression<O>
) -> AnyPredicateExpression<O?> where W.Output == Wrapped? {
    func make<T: StandardPredicateExpression<O>>(_: T) -> AnyPredicateExpression<O?> {
        PredicateExpressions.OptionalFlatMap(wrapped) { body($0) as! T }
    }
    return make(body(PredicateExpressions.Variable()))
}
