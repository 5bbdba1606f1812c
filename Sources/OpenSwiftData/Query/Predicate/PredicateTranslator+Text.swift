extension PredicateExpressions.CollectionContainsCollection: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        .term(try textFunction(.contains, base, other, translator: &translator))
    }
}

extension PredicateExpressions.SequenceStartsWith: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        .term(try textFunction(.startsWith, base, prefix, translator: &translator))
    }
}

extension PredicateExpressions.StringLocalizedStandardContains: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        .term(try textFunction(.localizedStandardContains, root, other, translator: &translator))
    }
}

extension PredicateExpressions.StringCaseInsensitiveCompare: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        .term(try textFunction(.caseInsensitiveCompare, root, other, translator: &translator))
    }
}

extension PredicateExpressions.StringLocalizedCompare: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        .term(try textFunction(.localizedCompare, root, other, translator: &translator))
    }
}

/// A two-argument text function; both operands must be text.
private func textFunction(
    _ function: QueryExpression.TextFunction, _ lhs: Any, _ rhs: Any, translator: inout PredicateTranslator
) throws -> QueryTerm {
    let left = try translator.term(lhs)
    let right = try translator.term(rhs)
    guard left.storage == .text, right.storage == .text else {
        throw Untranslatable(reason: "a text function on non-text values")
    }
    return QueryTerm(
        expression: .text(function, [left.expression, right.expression]),
        storage: .integer, isNullable: left.isNullable || right.isNullable)
}
