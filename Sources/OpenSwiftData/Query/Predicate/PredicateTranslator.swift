/// Translates Foundation's `Predicate` and `SortDescriptor` into a store-neutral ``QueryPlan``.
///
/// Every expression node gets a conformance to ``QueryTranslatable`` (see the `+Nodes` files).
/// A node that cannot be expressed throws; the nearest Boolean context then replaces it with a
/// constant chosen by polarity (true where the result must be a superset, false under a negation),
/// and marks the plan inexact so that the fetch re-checks every candidate with `evaluate`.
struct PredicateTranslator {
    /// What a translated node stands for.
    enum Translated {
        /// The row of a model in a scope: the fetched model (scope 0), or a related model a
        /// subquery ranges over.
        case row(Schema.Entity, scope: Int)
        /// A model known by an expression of its primary key (NULL for none): a to-one relationship.
        case model(Schema.Entity, key: QueryExpression)
        /// The models of a to-many relationship, found from a scope's row.
        case collection(Schema.Entity, relation: QueryExpression.Relation)
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
        /// For a primary key (a model's identity), the entity it belongs to.
        var entityName: String? = nil
    }

    /// The node could not be expressed in a query.
    struct Untranslatable: Error {
        let reason: String
    }

    let entity: Schema.Entity
    /// The schema, to follow relationships to other entities.
    let schema: Schema?
    /// The last scope a subquery used.
    private var lastScope = 0
    private var variables: [PredicateExpressions.VariableID: Translated] = [:]
    private(set) var isExact = true
    /// How many `&&` and `||` the predicate has: with more than one, a chain of them may need
    /// balancing (``QueryExpression/balanced``).
    var logicalOperators = 0
    /// The polarities of the enclosing Boolean contexts, innermost last.
    private(set) var polarityStack: [Bool] = []
    /// Whether the node being translated is reached from the predicate's root through `&&`, `||`
    /// and `!` alone. Only there may an untranslatable node become a polarity-safe constant: as an
    /// operand of `==`, a ternary's condition, a closure's body or any other value, a constant that
    /// is right for a superset can make the result wrong either way, so the node throws instead.
    private var isMonotoneContext = false

    init(entity: Schema.Entity, schema: Schema?) {
        self.entity = entity
        self.schema = schema
    }

    /// The plan for a fetch descriptor's predicate and sort.
    static func plan<T: PersistentModel>(for descriptor: FetchDescriptor<T>, entity: Schema.Entity, schema: Schema? = nil) -> QueryPlan {
        var translator = PredicateTranslator(entity: entity, schema: schema)
        var filter: QueryExpression?
        if let predicate = descriptor.predicate {
            let variable: PredicateExpressions.Variable<T> = predicate.variable
            translator.variables[variable.key] = .row(entity, scope: 0)
            translator.isMonotoneContext = true
            do {
                filter = try translator.boolean(predicate.expression, positive: true)
            } catch {
                // Unreachable: at the root an untranslatable node becomes `true`. Every row, then.
                translator.isExact = false
                filter = nil
            }
            if case .boolean(true) = filter { filter = nil }
            if translator.logicalOperators > 1 { filter = filter?.balanced }
        }
        var sort: [QuerySort] = []
        var sortIsExact = true
        for descriptor in descriptor.sortBy {
            // The type first: `\T.persistentModelID` is built anew at each call (it is generic).
            if descriptor.keyPath is KeyPath<T, PersistentIdentifier>, descriptor.keyPath == \T.persistentModelID {
                // Identifiers of one entity's saved models order as their keys.
                sort.append(QuerySort(attribute: 0, ascending: descriptor.order == .forward, expression: .key(scope: 0)))
                continue
            }
            guard let keyPath = descriptor.keyPath,
                  let key = translator.sortKey(keyPath, ascending: descriptor.order == .forward,
                                               comparator: LocalizedStringComparator.of(descriptor))
            else {
                sortIsExact = false
                sort = []
                break
            }
            sort.append(key)
        }
        return QueryPlan(filter: filter, isExact: translator.isExact, sort: sort, sortIsExact: sortIsExact)
    }

    /// Translates a Boolean operand of `&&`, `||` or `!` (or the predicate itself). Where the
    /// operand is reached from the root through those alone, a node that cannot be expressed is
    /// replaced with a polarity-safe constant and the plan marked inexact; anywhere else it throws.
    mutating func boolean(_ node: Any, positive: Bool) throws -> QueryExpression {
        polarityStack.append(positive)
        defer { polarityStack.removeLast() }
        let monotone = isMonotoneContext
        do {
            // A `Bool`'s term is never NULL (``definite(_:of:)``).
            return try self.term(node, monotone: monotone).expression
        } catch {
            guard monotone else { throw error }
            isExact = false
            return .boolean(positive)
        }
    }

    /// Marks the plan inexact: the store's rows are a superset, and `evaluate` decides.
    mutating func markInexact() { isExact = false }

    /// Translates a node that must produce a value; `monotone` only for the operands of `&&`, `||`
    /// and `!` in a monotone context.
    mutating func term(_ node: Any, monotone: Bool = false) throws -> QueryTerm {
        let enclosing = isMonotoneContext
        isMonotoneContext = monotone
        defer { isMonotoneContext = enclosing }
        switch try translate(node) {
        case .term(let term):
            return definite(term, of: node)
        case .row(let entity, let scope):
            // A model compared as a value compares by identity: its primary key.
            return QueryTerm(expression: .key(scope: scope), storage: .integer, isNullable: false, entityName: entity.name)
        case .model(let entity, let key):
            return QueryTerm(expression: key, storage: .integer, isNullable: true, entityName: entity.name)
        case .collection:
            throw Untranslatable(reason: "a to-many relationship used as a value")
        }
    }

    /// The sort key for a key path: an attribute of the entity, or an attribute of a to-one
    /// related model (`\.trip?.name`, read through a subquery), either of them text in a
    /// locale-aware order when the key path is a collated one (``LocalizedStringComparator``);
    /// `nil` when the store cannot sort by it.
    mutating func sortKey(_ keyPath: AnyKeyPath, ascending: Bool, comparator: LocalizedStringComparator?) -> QuerySort? {
        guard let (base, collated) = CollatedSortKeys.lookUp(keyPath) else {
            return sortKey(keyPath, ascending: ascending, collation: comparator)
        }
        return sortKey(base, ascending: ascending, collation: collated)
    }

    private mutating func sortKey(_ keyPath: AnyKeyPath, ascending: Bool, collation: LocalizedStringComparator?) -> QuerySort? {
        func sortable(_ field: Schema.Entity.Field) -> Bool {
            field.storage != nil && field.storage != .json && field.relationship == nil && !field.isEphemeral && !field.isTransformed
                && (collation == nil || field.storage == .text)
        }
        if let index = entity.propertyIndex(for: keyPath) {
            return sortable(entity.fields[index])
                ? QuerySort(attribute: index, ascending: ascending, isText: collation != nil, collation: collation) : nil
        }
        guard let components = KeyPathComponents.components(of: keyPath), components.count == 2,
              let first = entity.propertyIndex(forAccessor: components[0].accessor),
              let link = entity.links[first], !link.isToMany, link.storage == .foreignKey,
              let destination = schema?.entitiesByName[link.destinationName], destination.descendants.isEmpty,
              let second = destination.propertyIndex(forAccessor: components[1].accessor),
              sortable(destination.fields[second])
        else { return nil }
        let scope = newScope()
        let value = QueryExpression.subquery(.init(
            scope: scope, entity: destination.name, relation: .primaryKey(.attribute(first)), filter: nil,
            output: .value(.scoped(scope: scope, property: destination.fields[second].name))))
        return QuerySort(attribute: first, ascending: ascending, expression: value,
                         isText: destination.fields[second].storage == .text, collation: collation)
    }

    /// A new scope for a subquery.
    mutating func newScope() -> Int {
        lastScope += 1
        return lastScope
    }

    /// A node's term as Swift sees its value. A `Bool` (not a `Bool?`) is true or false in Swift
    /// wherever it is used: the store's unknown (`NULL IN (…)` where Swift's `[Int?].contains(nil)`
    /// is false, a related model's value read through a subquery) is false there, before anything
    /// compares it, wraps it in `Optional.flatMap` or negates it.
    func definite(_ term: QueryTerm, of node: Any) -> QueryTerm {
        guard term.isNullable, Self.producesBool(node) else { return term }
        return QueryTerm(expression: .falseIfNull(term.expression), storage: term.storage, isNullable: false)
    }

    /// Whether a node's value is a `Bool`, as opposed to a `Bool?` or any other type.
    static func producesBool(_ node: Any) -> Bool {
        func output<E: PredicateExpression>(of _: E) -> Any.Type { E.Output.self }
        guard let expression = node as? any PredicateExpression else { return false }
        return output(of: expression) == Bool.self
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

    /// What `keyPath` reaches from the row of a model of `entity` in `scope`: an attribute's
    /// value, a related model, the models of a to-many relationship, or the model's identifier.
    mutating func member(_ keyPath: AnyKeyPath, of entity: Schema.Entity, scope: Int) throws -> Translated {
        let key = QueryExpression.key(scope: scope)
        guard let index = entity.propertyIndex(for: keyPath) else {
            if type(of: keyPath).valueType == PersistentIdentifier.self {
                return .term(QueryTerm(expression: key, storage: .integer, isNullable: false, entityName: entity.name))
            }
            throw Untranslatable(reason: "\(keyPath) is not a persisted property of \(entity.name)")
        }
        let field = entity.fields[index]
        guard let link = entity.links[index] else {
            guard let storage = field.storage else { throw Untranslatable(reason: "\(field.name) has no column") }
            // The stored value of an `.ephemeral` attribute is not the model's: evaluated in Swift.
            guard !field.isEphemeral else { throw Untranslatable(reason: "\(field.name) is ephemeral") }
            guard !field.isTransformed else { throw Untranslatable(reason: "\(field.name) is stored as its transformer's bytes") }
            let column: QueryExpression = scope == 0 ? .attribute(index) : .scoped(scope: scope, property: field.name)
            return .term(QueryTerm(expression: column, storage: storage, isNullable: field.isOptional))
        }
        guard let destination = schema?.entitiesByName[link.destinationName] else {
            throw Untranslatable(reason: "\(link.destinationName) is not in the schema")
        }
        // Related models of a class hierarchy live in several tables: evaluated in Swift.
        guard destination.descendants.isEmpty else {
            throw Untranslatable(reason: "\(link.destinationName) has subclasses")
        }
        switch link.storage {
        case .foreignKey:
            let column: QueryExpression = scope == 0 ? .attribute(index) : .scoped(scope: scope, property: field.name)
            return .model(destination, key: column)
        case .inverseForeignKey:
            guard let inverse = link.inverse else { throw Untranslatable(reason: "a relationship without inverse") }
            let relation = QueryExpression.Relation.inverse(property: destination.fields[inverse].name, equals: key)
            if link.isToMany { return .collection(destination, relation: relation) }
            let inner = newScope()
            return .model(destination, key: .subquery(.init(
                scope: inner, entity: destination.name, relation: relation, filter: nil,
                output: .value(.key(scope: inner)))))
        case .link(let name, let ownerIsSource):
            return .collection(destination, relation: .link(name, ownerIsSource: ownerIsSource, owner: key))
        }
    }

    /// What `keyPath` reaches from a to-one related model: the same member, read through a
    /// subquery over the model's row.
    mutating func member(_ keyPath: AnyKeyPath, ofModel entity: Schema.Entity, key: QueryExpression) throws -> Translated {
        if entity.propertyIndex(for: keyPath) == nil, type(of: keyPath).valueType == PersistentIdentifier.self {
            return .term(QueryTerm(expression: key, storage: .integer, isNullable: true, entityName: entity.name))
        }
        let scope = newScope()
        let inner = try member(keyPath, of: entity, scope: scope)
        func lifted(_ expression: QueryExpression) -> QueryExpression {
            .subquery(.init(scope: scope, entity: entity.name, relation: .primaryKey(key), filter: nil, output: .value(expression)))
        }
        switch inner {
        case .term(let term):
            return .term(QueryTerm(expression: lifted(term.expression), storage: term.storage, isNullable: true, entityName: term.entityName))
        case .model(let destination, let innerKey):
            return .model(destination, key: lifted(innerKey))
        case .row, .collection:
            throw Untranslatable(reason: "a to-many relationship of a related model")
        }
    }

    /// A subquery over the models of a to-many relationship, with `test` (a closure's body, its
    /// variable bound to each model) as the condition.
    mutating func subquery(
        over destination: Schema.Entity, relation: QueryExpression.Relation, variable: PredicateExpressions.VariableID?,
        test: Any?, output: QueryExpression.Output, negatedTest: Bool = false
    ) throws -> QueryExpression {
        let scope = newScope()
        var filter: QueryExpression?
        if let test, let variable {
            // Inside a subquery the test must be exact: a superset there is not a superset outside.
            filter = try binding(variable, to: .row(destination, scope: scope)) { translator in
                let condition = try translator.term(test).expression
                return negatedTest ? .not(condition) : condition
            }
        }
        return .subquery(.init(scope: scope, entity: destination.name, relation: relation, filter: filter, output: output))
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
