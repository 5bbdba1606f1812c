import Foundation

/// Which variables of a predicate's expression tree stand for which others: rebuilding a tree
/// through it replaces each `Variable` node it names, so that the trees of two predicates can be
/// joined under one variable. The tree keeps its node types, all Foundation's, so the joined
/// predicate evaluates, translates to SQL and describes itself as one written by hand.
struct VariableSubstitution {
    private var replacements: [PredicateExpressions.VariableID: any Sendable] = [:]

    /// Replaces `old` by `new` in what is rebuilt through the substitution.
    func replacing<Output>(_ old: PredicateExpressions.Variable<Output>, with new: PredicateExpressions.Variable<Output>) -> Self {
        var copy = self
        copy.replacements[old.key] = new
        return copy
    }

    /// The replacement of a variable, if the substitution names it.
    func replacement<Output>(for variable: PredicateExpressions.Variable<Output>) -> PredicateExpressions.Variable<Output>? {
        replacements[variable.key] as? PredicateExpressions.Variable<Output>
    }

    /// `expression` rebuilt with the variables replaced. A node of a type it does not know (one
    /// an app defines) is kept as it is: a variable inside it then stays unbound, and evaluating
    /// the predicate throws rather than answer.
    func rebind<Expression>(_ expression: Expression) -> Expression {
        guard let rebindable = expression as? any RebindablePredicateExpression,
              let rebound = rebindable.rebinding(self) as? Expression else { return expression }
        return rebound
    }
}

/// A predicate expression node that can be rebuilt with its variables replaced.
protocol RebindablePredicateExpression {
    /// The node rebuilt, its children rebuilt through `substitution`.
    func rebinding(_ substitution: VariableSubstitution) -> Self
}

extension PredicateExpressions.Variable: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { substitution.replacement(for: self) ?? self }
}

extension PredicateExpressions.Value: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { self }
}

extension PredicateExpressions.NilLiteral: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { self }
}

extension PredicateExpressions.KeyPath: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(root: substitution.rebind(root), keyPath: keyPath) }
}

// MARK: Comparison and logic

extension PredicateExpressions.Equal: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(lhs: substitution.rebind(lhs), rhs: substitution.rebind(rhs)) }
}

extension PredicateExpressions.NotEqual: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(lhs: substitution.rebind(lhs), rhs: substitution.rebind(rhs)) }
}

extension PredicateExpressions.Comparison: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(lhs: substitution.rebind(lhs), rhs: substitution.rebind(rhs), op: op) }
}

extension PredicateExpressions.Conjunction: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(lhs: substitution.rebind(lhs), rhs: substitution.rebind(rhs)) }
}

extension PredicateExpressions.Disjunction: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(lhs: substitution.rebind(lhs), rhs: substitution.rebind(rhs)) }
}

extension PredicateExpressions.Negation: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(substitution.rebind(wrapped)) }
}

extension PredicateExpressions.Conditional: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self {
        Self(test: substitution.rebind(test), trueBranch: substitution.rebind(trueBranch), falseBranch: substitution.rebind(falseBranch))
    }
}

// MARK: Optionals

extension PredicateExpressions.NilCoalesce: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(lhs: substitution.rebind(lhs), rhs: substitution.rebind(rhs)) }
}

extension PredicateExpressions.ForcedUnwrap: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(substitution.rebind(inner)) }
}

/// `OptionalFlatMap` has one initializer per shape of its result, each under its own constraint:
/// the node is rebuilt through the one its type meets.
extension PredicateExpressions.OptionalFlatMap: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self {
        if let plain = self as? any FlatMapRebuilding, let rebuilt = plain.rebuilt(substitution) as? Self { return rebuilt }
        if let flattened = self as? any OptionalFlatMapRebuilding, let rebuilt = flattened.rebuilt(substitution) as? Self { return rebuilt }
        return self
    }
}

/// An `OptionalFlatMap` whose transform gives a plain value (`$0.trip?.name`).
private protocol FlatMapRebuilding {
    /// The node rebuilt (of the conforming type).
    func rebuilt(_ substitution: VariableSubstitution) -> Any
}

extension PredicateExpressions.OptionalFlatMap: FlatMapRebuilding where Result == RHS.Output {
    fileprivate func rebuilt(_ substitution: VariableSubstitution) -> Any {
        Self(substitution.rebind(wrapped)) { inner in substitution.replacing(variable, with: inner).rebind(transform) }
    }
}

/// An `OptionalFlatMap` whose transform gives an optional (`$0.trip?.notes`).
private protocol OptionalFlatMapRebuilding {
    /// The node rebuilt (of the conforming type).
    func rebuilt(_ substitution: VariableSubstitution) -> Any
}

extension PredicateExpressions.OptionalFlatMap: OptionalFlatMapRebuilding where RHS.Output == Result? {
    fileprivate func rebuilt(_ substitution: VariableSubstitution) -> Any {
        Self(substitution.rebind(wrapped)) { inner in substitution.replacing(variable, with: inner).rebind(transform) }
    }
}

// MARK: Arithmetic

extension PredicateExpressions.Arithmetic: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(lhs: substitution.rebind(lhs), rhs: substitution.rebind(rhs), op: op) }
}

extension PredicateExpressions.UnaryMinus: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(substitution.rebind(wrapped)) }
}

extension PredicateExpressions.IntDivision: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(lhs: substitution.rebind(lhs), rhs: substitution.rebind(rhs)) }
}

extension PredicateExpressions.IntRemainder: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(lhs: substitution.rebind(lhs), rhs: substitution.rebind(rhs)) }
}

extension PredicateExpressions.FloatDivision: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(lhs: substitution.rebind(lhs), rhs: substitution.rebind(rhs)) }
}

// MARK: Sequences, collections and ranges

extension PredicateExpressions.SequenceContains: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self {
        Self(sequence: substitution.rebind(sequence), element: substitution.rebind(element))
    }
}

extension PredicateExpressions.SequenceContainsWhere: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self {
        Self(substitution.rebind(sequence)) { inner in substitution.replacing(variable, with: inner).rebind(test) }
    }
}

extension PredicateExpressions.SequenceAllSatisfy: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self {
        Self(substitution.rebind(sequence)) { inner in substitution.replacing(variable, with: inner).rebind(test) }
    }
}

extension PredicateExpressions.Filter: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self {
        Self(substitution.rebind(sequence)) { inner in substitution.replacing(variable, with: inner).rebind(filter) }
    }
}

extension PredicateExpressions.SequenceStartsWith: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(base: substitution.rebind(base), prefix: substitution.rebind(prefix)) }
}

extension PredicateExpressions.SequenceMaximum: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(elements: substitution.rebind(elements)) }
}

extension PredicateExpressions.SequenceMinimum: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(elements: substitution.rebind(elements)) }
}

extension PredicateExpressions.CollectionContainsCollection: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(base: substitution.rebind(base), other: substitution.rebind(other)) }
}

extension PredicateExpressions.CollectionIndexSubscript: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(wrapped: substitution.rebind(wrapped), index: substitution.rebind(index)) }
}

extension PredicateExpressions.CollectionRangeSubscript: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(wrapped: substitution.rebind(wrapped), range: substitution.rebind(range)) }
}

extension PredicateExpressions.DictionaryKeySubscript: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(wrapped: substitution.rebind(wrapped), key: substitution.rebind(key)) }
}

extension PredicateExpressions.DictionaryKeyDefaultValueSubscript: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self {
        Self(wrapped: substitution.rebind(wrapped), key: substitution.rebind(key), default: substitution.rebind(`default`))
    }
}

extension PredicateExpressions.Range: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(lower: substitution.rebind(lower), upper: substitution.rebind(upper)) }
}

extension PredicateExpressions.ClosedRange: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(lower: substitution.rebind(lower), upper: substitution.rebind(upper)) }
}

extension PredicateExpressions.RangeExpressionContains: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(range: substitution.rebind(range), element: substitution.rebind(element)) }
}

// MARK: Text, regular expressions and types

extension PredicateExpressions.StringContainsRegex: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(subject: substitution.rebind(subject), regex: substitution.rebind(regex)) }
}

extension PredicateExpressions.StringLocalizedStandardContains: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(root: substitution.rebind(root), other: substitution.rebind(other)) }
}

extension PredicateExpressions.StringCaseInsensitiveCompare: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(root: substitution.rebind(root), other: substitution.rebind(other)) }
}

extension PredicateExpressions.StringLocalizedCompare: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(root: substitution.rebind(root), other: substitution.rebind(other)) }
}

extension PredicateExpressions.TypeCheck: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(substitution.rebind(input)) }
}

extension PredicateExpressions.ConditionalCast: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(substitution.rebind(input)) }
}

extension PredicateExpressions.ForceCast: RebindablePredicateExpression {
    func rebinding(_ substitution: VariableSubstitution) -> Self { Self(substitution.rebind(input)) }
}
