extension PredicateExpressions.Conjunction: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        translator.logicalOperators += 1
        let positive = translator.currentPolarity
        let left = try translator.boolean(lhs, positive: positive)
        let right = try translator.boolean(rhs, positive: positive)
        return .term(QueryTerm(expression: .and(left, right), storage: .integer, isNullable: false))
    }
}

extension PredicateExpressions.Disjunction: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        translator.logicalOperators += 1
        let positive = translator.currentPolarity
        let left = try translator.boolean(lhs, positive: positive)
        let right = try translator.boolean(rhs, positive: positive)
        return .term(QueryTerm(expression: .or(left, right), storage: .integer, isNullable: false))
    }
}

extension PredicateExpressions.Negation: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        let inner = try translator.boolean(wrapped, positive: !translator.currentPolarity)
        return .term(QueryTerm(expression: .not(inner), storage: .integer, isNullable: false))
    }
}

extension PredicateExpressions.Conditional: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        let condition = try translator.term(test)
        let yes = try translator.term(trueBranch)
        let no = try translator.term(falseBranch)
        return .term(QueryTerm(
            expression: .conditional(condition.expression, yes.expression, no.expression),
            storage: yes.storage ?? no.storage, isNullable: yes.isNullable || no.isNullable))
    }
}

extension PredicateExpressions.Equal: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        .term(try comparison(.equal, lhs, rhs, optional: isOptionalType(LHS.Output.self), translator: &translator))
    }
}

extension PredicateExpressions.NotEqual: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        .term(try comparison(.notEqual, lhs, rhs, optional: isOptionalType(LHS.Output.self), translator: &translator))
    }
}

extension PredicateExpressions.Comparison: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        let operation: QueryExpression.ComparisonOperator = switch op {
        case .lessThan: .less
        case .lessThanOrEqual: .lessOrEqual
        case .greaterThan: .greater
        case .greaterThanOrEqual: .greaterOrEqual
        @unknown default: throw Untranslatable(reason: "an unknown comparison")
        }
        return .term(try comparison(operation, lhs, rhs, optional: false, translator: &translator))
    }
}

/// A comparison of two translated operands with the semantics of their Swift type.
func comparison(
    _ operation: QueryExpression.ComparisonOperator, _ lhs: Any, _ rhs: Any, optional: Bool,
    translator: inout PredicateTranslator
) throws -> QueryTerm {
    let left = try translator.term(lhs)
    let right = try translator.term(rhs)
    let storage = left.storage ?? right.storage
    if storage == .json || left.storage == .json || right.storage == .json {
        throw Untranslatable(reason: "comparing JSON-stored values")
    }
    if let leftStorage = left.storage, let rightStorage = right.storage, leftStorage != rightStorage,
       !(Set([leftStorage, rightStorage]).isSubset(of: [.integer]))
    {
        throw Untranslatable(reason: "comparing \(leftStorage) with \(rightStorage)")
    }
    if let leftEntity = left.entityName, let rightEntity = right.entityName, leftEntity != rightEntity {
        // Identities of different entities are never equal.
        guard operation == .equal || operation == .notEqual else { throw Untranslatable(reason: "ordering identities") }
        return QueryTerm(expression: .boolean(operation == .notEqual), storage: .integer, isNullable: false)
    }
    var options = QueryExpression.CompareOptions()
    options.nullSafe = optional
    options.text = storage == .text
    // A Date is its time interval: one that is NaN is unordered and unequal, as a Double's NaN.
    options.floating = storage == .real || storage == .date
    let nullable = !optional && (left.isNullable || right.isNullable)
    return QueryTerm(expression: .compare(operation, left.expression, right.expression, options), storage: .integer, isNullable: nullable)
}

extension PredicateTranslator {
    /// The polarity of the Boolean context being translated: `true` where a superset is safe.
    var currentPolarity: Bool { polarityStack.last ?? true }
}
