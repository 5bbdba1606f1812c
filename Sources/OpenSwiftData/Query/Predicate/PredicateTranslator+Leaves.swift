typealias Translated = PredicateTranslator.Translated
typealias QueryTerm = PredicateTranslator.QueryTerm
typealias Untranslatable = PredicateTranslator.Untranslatable

extension PredicateExpressions.Variable: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        try translator.variable(key)
    }
}

/// Gives generic code the captured value of a `Value` node.
protocol CapturedValueNode {
    var capturedValue: Any { get }
}

extension PredicateExpressions.Value: CapturedValueNode {
    var capturedValue: Any { value }
}

extension PredicateExpressions.Value: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        .term(try storedTerm(value))
    }
}

/// The term for a captured Swift value, encoded the way a property of its type is stored.
func storedTerm(_ value: Any) throws -> QueryTerm {
    if let result = value as? ComparisonResult {
        return QueryTerm(expression: .value(.integer(Int64(result.rawValue))), storage: .integer, isNullable: false)
    }
    guard let scalar = value as? any _PersistentScalar, let stored = StoredValue.encoding(value) else {
        throw Untranslatable(reason: "a captured \(type(of: value)) has no stored form")
    }
    let storage = type(of: scalar)._osdStorage
    return QueryTerm(expression: .value(stored), storage: storage, isNullable: stored == .null)
}

extension PredicateExpressions.NilLiteral: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        .term(QueryTerm(expression: .value(.null), storage: nil, isNullable: true))
    }
}

extension PredicateExpressions.KeyPath: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        switch try translator.translate(root) {
        case .root:
            return .term(try translator.attribute(keyPath as AnyKeyPath))
        case .term(let base):
            guard base.storage == .text else { throw Untranslatable(reason: "\(keyPath) on a non-text value") }
            switch kind {
            case .collectionCount?:
                return .term(QueryTerm(expression: .text(.count, [base.expression]), storage: .integer, isNullable: base.isNullable))
            case .collectionIsEmpty?:
                let count = QueryExpression.text(.count, [base.expression])
                return .term(QueryTerm(
                    expression: .compare(.equal, count, .value(.integer(0)), .init()),
                    storage: .integer, isNullable: base.isNullable))
            default:
                throw Untranslatable(reason: "\(keyPath) has no query form")
            }
        }
    }
}
