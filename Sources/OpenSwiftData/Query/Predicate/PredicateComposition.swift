import Foundation

/// Returns a predicate that a value satisfies when it satisfies both predicates.
///
/// Use it to build a filter at run time from parts a user chose:
///
/// ```swift
/// var filter = #Predicate<Trip> { $0.isFavorite }
/// if let city { filter = filter && #Predicate<Trip> { $0.destination == city } }
/// let trips = try context.fetch(FetchDescriptor(predicate: filter))
/// ```
///
/// The result is an ordinary predicate: the two expression trees joined by Foundation's
/// `PredicateExpressions.Conjunction` under one variable, as `#Predicate { a && b }` would build
/// them. It evaluates, runs in SQL, and prints as a predicate written in one piece does.
///
/// This operator is an addition of OpenSwiftData; on Apple platforms, SwiftData code combines
/// predicates with `#Predicate { first.evaluate($0) && second.evaluate($0) }`, which Foundation
/// does not offer on Linux.
public func && <Input>(lhs: Predicate<Input>, rhs: Predicate<Input>) -> Predicate<Input> {
    Predicate<Input> { variable in
        let (left, right) = PredicateComposition.rebound(lhs, rhs, to: variable)
        return PredicateComposition.conjunction(left, right)
    }
}

/// Returns a predicate that a value satisfies when it satisfies either predicate.
///
/// See `&&(_:_:)`: the two trees joined by Foundation's `PredicateExpressions.Disjunction`.
///
/// This operator is an addition of OpenSwiftData.
public func || <Input>(lhs: Predicate<Input>, rhs: Predicate<Input>) -> Predicate<Input> {
    Predicate<Input> { variable in
        let (left, right) = PredicateComposition.rebound(lhs, rhs, to: variable)
        return PredicateComposition.disjunction(left, right)
    }
}

/// Returns a predicate that a value satisfies when it does not satisfy `predicate`.
///
/// See `&&(_:_:)`: the tree under Foundation's `PredicateExpressions.Negation`.
///
/// This operator is an addition of OpenSwiftData.
public prefix func ! <Input>(predicate: Predicate<Input>) -> Predicate<Input> {
    Predicate<Input> { variable in
        let expression = VariableSubstitution().replacing(predicate.variable, with: variable).rebind(predicate.expression)
        return PredicateComposition.negation(expression)
    }
}

/// The joining of predicates' expression trees, each opened to its concrete type so that
/// Foundation's generic nodes can hold it.
enum PredicateComposition {
    /// The expressions of two predicates, each rebuilt with `variable` for its own.
    static func rebound<Input>(
        _ lhs: Predicate<Input>, _ rhs: Predicate<Input>, to variable: PredicateExpressions.Variable<Input>
    ) -> (any StandardPredicateExpression<Bool>, any StandardPredicateExpression<Bool>) {
        let left = VariableSubstitution().replacing(lhs.variable, with: variable).rebind(lhs.expression)
        let right = VariableSubstitution().replacing(rhs.variable, with: variable).rebind(rhs.expression)
        return (left, right)
    }

    /// `lhs && rhs` as Foundation's node.
    static func conjunction<LHS: StandardPredicateExpression<Bool>, RHS: StandardPredicateExpression<Bool>>(
        _ lhs: LHS, _ rhs: RHS
    ) -> any StandardPredicateExpression<Bool> {
        PredicateExpressions.Conjunction(lhs: lhs, rhs: rhs)
    }

    /// `lhs || rhs` as Foundation's node.
    static func disjunction<LHS: StandardPredicateExpression<Bool>, RHS: StandardPredicateExpression<Bool>>(
        _ lhs: LHS, _ rhs: RHS
    ) -> any StandardPredicateExpression<Bool> {
        PredicateExpressions.Disjunction(lhs: lhs, rhs: rhs)
    }

    /// `!wrapped` as Foundation's node.
    static func negation<Wrapped: StandardPredicateExpression<Bool>>(_ wrapped: Wrapped) -> any StandardPredicateExpression<Bool> {
        PredicateExpressions.Negation(wrapped)
    }
}
