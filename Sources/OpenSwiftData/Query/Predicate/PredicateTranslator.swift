/// Translates Foundation's `Predicate` and `SortDescriptor` into a store-neutral ``QueryPlan``.
///
/// Every expression node gets a conformance to ``QueryTranslatable`` (see the `+Nodes` files).
/// A node that cannot be expressed throws; the nearest Boolean context then replaces it with a
/// constant chosen by polarity (true where the result must be a superset, false under a negation),
/// and marks the plan inexact so that the fetch re-checks every candidate with `evaluate`.
struct PredicateTranslator {
    /// What a translated node stands for.
    enum Translated {
        /// The fetched model itself (the predicate's variable).
        case root
        /// A value-producing expression.
        case term(QueryTerm)
    }

    /// An expression together with what the store needs to know about its values.
    struct QueryTerm {
        var expression: QueryExpression
        /// How the values are stored, when they come from or compare with an attribute.
        var storage: StorageClass?
        /// Whether the expression can be NULL in the store.
        var isNullable: Bool
    }

    /// The node could not be expressed in a query.
    struct Untranslatable: Error {
        let reason: String
    }

    let entity: Schema.Entity
    private var variables: [PredicateExpressions.VariableID: Translated] = [:]
    private(set) var isExact = true
    /// The polarities of the enclosing Boolean contexts, innermost last.
    private(set) var polarityStack: [Bool] = []

    init(entity: Schema.Entity) {
        self.entity = entity
    }

    /// The plan for a fetch descriptor's predicate and sort.
    static func plan<T: PersistentModel>(for descriptor: FetchDescriptor<T>, entity: Schema.Entity) -> QueryPlan {
        var translator = PredicateTranslator(entity: entity)
        var filter: QueryExpression?
        if let predicate = descriptor.predicate {
            let variable: PredicateExpressions.Variable<T> = predicate.variable
            translator.variables[variable.key] = .root
            filter = translator.boolean(predicate.expression, positive: true)
            if case .boolean(true) = filter { filter = nil }
        }
        var sort: [QuerySort] = []
        var sortIsExact = true
        for descriptor in descriptor.sortBy {
            guard let keyPath = descriptor.keyPath, let index = entity.attributeIndexByKeyPath[keyPath],
                  entity.attributes[index].storage != .json
            else {
                sortIsExact = false
                sort = []
                break
            }
            sort.append(QuerySort(attribute: index, ascending: descriptor.order == .forward))
        }
        return QueryPlan(filter: filter, isExact: translator.isExact, sort: sort, sortIsExact: sortIsExact)
    }

    /// Translates a Boolean node, replacing it with a polarity-safe constant when it cannot be expressed.
    mutating func boolean(_ node: Any, positive: Bool) -> QueryExpression {
        polarityStack.append(positive)
        defer { polarityStack.removeLast() }
        do {
            let term = try self.term(node)
            return term.isNullable ? .falseIfNull(term.expression) : term.expression
        } catch {
            isExact = false
            return .boolean(positive)
        }
    }

    /// Translates a node that must produce a value.
    mutating func term(_ node: Any) throws -> QueryTerm {
        guard case .term(let term) = try translate(node) else {
            throw Untranslatable(reason: "a model used as a value")
        }
        return term
    }

    /// Translates any node.
    mutating func translate(_ node: Any) throws -> Translated {
        guard let node = node as? any QueryTranslatable else {
            throw Untranslatable(reason: "\(type(of: node)) has no query form")
        }
        return try node.translate(into: &self)
    }

    /// Resolves a variable introduced by the predicate or by an inner closure.
    func variable(_ key: PredicateExpressions.VariableID) throws -> Translated {
        guard let binding = variables[key] else { throw Untranslatable(reason: "an unbound variable") }
        return binding
    }

    /// Binds an inner closure's variable while translating its body.
    mutating func binding<R>(_ key: PredicateExpressions.VariableID, to value: Translated, _ body: (inout Self) throws -> R) rethrows -> R {
        let previous = variables[key]
        variables[key] = value
        defer { variables[key] = previous }
        return try body(&self)
    }

    /// The term for an attribute of the fetched entity reached through `keyPath`.
    func attribute(_ keyPath: AnyKeyPath) throws -> QueryTerm {
        guard let index = entity.attributeIndexByKeyPath[keyPath] else {
            throw Untranslatable(reason: "\(keyPath) is not a persisted attribute of \(entity.name)")
        }
        let attribute = entity.attributes[index]
        return QueryTerm(expression: .attribute(index), storage: attribute.storage, isNullable: attribute.isOptional)
    }
}

/// A predicate expression node that can become a ``QueryExpression``.
protocol QueryTranslatable {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateTranslator.Translated
}

/// Lets generic code ask whether a type is an `Optional`.
protocol OptionalType {}
extension Optional: OptionalType {}

func isOptionalType(_ type: Any.Type) -> Bool { type is any OptionalType.Type }
