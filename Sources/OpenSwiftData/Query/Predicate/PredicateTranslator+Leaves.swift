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
    if let id = value as? PersistentIdentifier {
        // A temporary identifier names no stored row: key 0 matches nothing.
        return QueryTerm(expression: .value(.integer(id.primaryKey ?? 0)), storage: .integer, isNullable: false, entityName: id.entityName)
    }
    // Not for a standard value type (never a model): casting a number or a string to a class
    // existential bridges it to an object on the way, only to fail.
    if !(type(of: value) is any _PersistentScalar.Type), let model = value as? any PersistentModel {
        let state = model._osdState
        return QueryTerm(expression: .value(.integer(state.primaryKey)), storage: .integer, isNullable: false, entityName: state.entityName ?? "")
    }
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
        case .row(let entity, let scope):
            return try translator.member(keyPath as AnyKeyPath, of: entity, scope: scope)
        case .model(let entity, let key):
            return try translator.member(keyPath as AnyKeyPath, ofModel: entity, key: key)
        case .collection(let destination, let relation):
            switch kind {
            case .collectionCount?:
                let count = try translator.subquery(over: destination, relation: relation, variable: nil, test: nil, output: .count)
                return .term(QueryTerm(expression: count, storage: .integer, isNullable: false))
            case .collectionIsEmpty?:
                let exists = try translator.subquery(over: destination, relation: relation, variable: nil, test: nil, output: .exists)
                return .term(QueryTerm(expression: .not(exists), storage: .integer, isNullable: false))
            default:
                throw Untranslatable(reason: "\(keyPath) of a to-many relationship has no query form")
            }
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

extension PredicateExpressions.SequenceContainsWhere: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        guard case .collection(let destination, let relation) = try translator.translate(sequence) else {
            throw Untranslatable(reason: "contains(where:) on a value")
        }
        let exists = try translator.subquery(over: destination, relation: relation, variable: variable.key, test: test, output: .exists)
        return .term(QueryTerm(expression: exists, storage: .integer, isNullable: false))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        guard case .collection(let destination, let relation) = try translator.translate(sequence) else {
            throw Untranslatable(reason: "allSatisfy on a value")
        }
        // Every model passes when none fails; an empty relationship satisfies it, as in Swift.
        let failing = try translator.subquery(over: destination, relation: relation, variable: variable.key, test: test, output: .exists, negatedTest: true)
        return .term(QueryTerm(expression: .not(failing), storage: .integer, isNullable: false))
    }
}

extension PredicateExpressions.TypeCheck: QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> Translated {
        // `$0 is Video`: each table holds one model class, so the answer is known per table.
        guard case .row(let entity, _) = try translator.translate(input),
              let desired = Desired.self as? any PersistentModel.Type
        else { throw Untranslatable(reason: "a type check on a value") }
        var current: Schema.Entity? = entity
        while let candidate = current {
            if candidate.modelType == desired {
                return .term(QueryTerm(expression: .boolean(true), storage: .integer, isNullable: false))
            }
            current = candidate.superentity
        }
        return .term(QueryTerm(expression: .boolean(false), storage: .integer, isNullable: false))
    }
}
