extension PredicateExpressions.Arithmetic: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        let operation: QueryExpression.ArithmeticOperator = switch op {
        case .add: .add
        case .subtract: .subtract
        case .multiply: .multiply
        @unknown default: throw Untranslatable(reason: "an unknown arithmetic operator")
        }
        return .term(try integerArithmetic(operation, lhs, rhs, translator: &translator))
    }
}

extension PredicateExpressions.IntDivision: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        .term(try integerArithmetic(.divide, lhs, rhs, translator: &translator))
    }
}

extension PredicateExpressions.IntRemainder: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        .term(try integerArithmetic(.remainder, lhs, rhs, translator: &translator))
    }
}

extension PredicateExpressions.UnaryMinus: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        let operand = try translator.term(wrapped)
        guard operand.storage == .integer else { throw Untranslatable(reason: "negating a non-integer") }
        return .term(QueryTerm(expression: .negate(operand.expression), storage: .integer, isNullable: operand.isNullable))
    }
}

/// Arithmetic is translated for signed integers only: SQLite's integer arithmetic matches Swift's
/// there (both truncate division toward zero), while floating-point NaN and the sign-flipped
/// encoding of `UInt64` do not survive SQL arithmetic. Other arithmetic is evaluated in Swift.
private func integerArithmetic(
    _ operation: QueryExpression.ArithmeticOperator, _ lhs: Any, _ rhs: Any, translator: inout PredicateTranslator
) throws -> QueryTerm {
    let left = try translator.term(lhs)
    let right = try translator.term(rhs)
    guard left.storage == .integer, right.storage == .integer else {
        throw Untranslatable(reason: "arithmetic on non-integers")
    }
    let nullable = left.isNullable || right.isNullable || operation == .divide || operation == .remainder
    return QueryTerm(expression: .arithmetic(operation, left.expression, right.expression), storage: .integer, isNullable: nullable)
}

extension PredicateExpressions.NilCoalesce: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        let left = try translator.term(lhs)
        let right = try translator.term(rhs)
        return .term(QueryTerm(
            expression: .coalesce(left.expression, right.expression),
            storage: left.storage ?? right.storage, isNullable: right.isNullable))
    }
}

extension PredicateExpressions.OptionalFlatMap: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        switch try translator.translate(wrapped) {
        case .model(let entity, let key):
            // `$0.trip?.name`: the body reads the related model through subqueries, which give
            // NULL when there is no related model.
            let body = try translator.binding(variable.key, to: .model(entity, key: key)) { try $0.translate(transform) }
            guard case .term(let value) = body else { return body }
            let term = translator.definite(value, of: transform)
            return .term(QueryTerm(
                expression: .conditional(.isNull(key), .value(.null), term.expression),
                storage: term.storage, isNullable: true, entityName: term.entityName))
        case .collection(let entity, let relation):
            // An optional to-many relationship: the store keeps nil and empty alike.
            let body = try translator.binding(variable.key, to: .collection(entity, relation: relation)) { try $0.translate(transform) }
            guard case .term(let value) = body else { return body }
            return .term(translator.definite(value, of: transform))
        case .row, .term:
            break
        }
        let base = try translator.term(wrapped)
        let unwrapped = QueryTerm(expression: base.expression, storage: base.storage, isNullable: false)
        let body = try translator.binding(variable.key, to: .term(unwrapped)) { try $0.term(transform) }
        return .term(QueryTerm(
            expression: .conditional(.isNull(base.expression), .value(.null), body.expression),
            storage: body.storage, isNullable: true))
    }
}

extension PredicateExpressions.ForcedUnwrap: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        // Swift's evaluate throws on nil, which a fetch treats as no match. The store's NULL gives
        // the same answer where it reaches the top, but not under `!` or beside a Boolean that
        // decides without it: the store's rows are then a superset, and `evaluate` decides.
        translator.markInexact()
        return try translator.translate(inner)
    }
}

extension PredicateExpressions.SequenceContains: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        if !(sequence is any CapturedValueNode), case .collection(let destination, let relation) = try translator.translate(sequence) {
            // `$0.tags.contains(tag)`: whether a related row is that model.
            let needle = try translator.term(element)
            guard needle.entityName == nil || needle.entityName == destination.name else {
                return .term(QueryTerm(expression: .boolean(false), storage: .integer, isNullable: false))
            }
            let scope = translator.newScope()
            let exists = QueryExpression.subquery(.init(
                scope: scope, entity: destination.name, relation: relation,
                filter: .compare(.equal, .key(scope: scope), needle.expression, .init()), output: .exists))
            return .term(QueryTerm(expression: exists, storage: .integer, isNullable: false))
        }
        guard let captured = sequence as? any CapturedValueNode,
              let elements = captured.capturedValue as? any Sequence
        else { throw Untranslatable(reason: "contains on a stored collection") }
        let needle = try translator.term(element)
        guard needle.storage != .json else { throw Untranslatable(reason: "contains of a JSON-stored value") }
        var values: [StoredValue] = []
        var containsNil = false
        for element in elements {
            if let optional = element as? any _OptionalValue, optional._isNil {
                containsNil = true
                continue
            }
            let term = try storedTerm(element)
            if case .value(let value) = term.expression {
                if case .real(let number) = value, number.isNaN { continue }
                if case .blob = value, term.storage == .real { continue }
                values.append(value)
            }
        }
        var expression: QueryExpression = values.isEmpty ? .boolean(false) : .inList(needle.expression, values)
        var nullable = needle.isNullable && !values.isEmpty
        if containsNil {
            expression = .or(.isNull(needle.expression), needle.isNullable ? .falseIfNull(expression) : expression)
            nullable = false
        }
        return .term(QueryTerm(expression: expression, storage: .integer, isNullable: nullable))
    }
}

extension PredicateExpressions.RangeExpressionContains: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        let value = try translator.term(element)
        let bounds: (lower: QueryTerm, upper: QueryTerm, closed: Bool)
        if let node = range as? any RangeNode {
            bounds = try node.bounds(&translator)
        } else if let captured = range as? any CapturedValueNode, let range = captured.capturedValue as? any CapturedRange {
            bounds = (try storedTerm(range.lowerValue), try storedTerm(range.upperValue), range.isClosed)
        } else {
            throw Untranslatable(reason: "an unknown range")
        }
        guard value.storage != .json, value.storage != .real else { throw Untranslatable(reason: "a range of this type") }
        var options = QueryExpression.CompareOptions()
        options.text = value.storage == .text
        let expression = QueryExpression.and(
            .compare(.greaterOrEqual, value.expression, bounds.lower.expression, options),
            .compare(bounds.closed ? .lessOrEqual : .less, value.expression, bounds.upper.expression, options))
        return .term(QueryTerm(expression: expression, storage: .integer, isNullable: value.isNullable))
    }
}

/// A `Range` or `ClosedRange` node written inside the predicate.
protocol RangeNode {
    func bounds(_ translator: inout PredicateTranslator) throws -> (lower: QueryTerm, upper: QueryTerm, closed: Bool)
}

extension PredicateExpressions.Range: RangeNode {
    func bounds(_ translator: inout PredicateTranslator) throws -> (lower: QueryTerm, upper: QueryTerm, closed: Bool) {
        (try translator.term(lower), try translator.term(upper), false)
    }
}

extension PredicateExpressions.ClosedRange: RangeNode {
    func bounds(_ translator: inout PredicateTranslator) throws -> (lower: QueryTerm, upper: QueryTerm, closed: Bool) {
        (try translator.term(lower), try translator.term(upper), true)
    }
}

/// A captured `Range` or `ClosedRange` value.
protocol CapturedRange {
    var lowerValue: Any { get }
    var upperValue: Any { get }
    var isClosed: Bool { get }
}

extension Range: CapturedRange {
    var lowerValue: Any { lowerBound }
    var upperValue: Any { upperBound }
    var isClosed: Bool { false }
}

extension ClosedRange: CapturedRange {
    var lowerValue: Any { lowerBound }
    var upperValue: Any { upperBound }
    var isClosed: Bool { true }
}
