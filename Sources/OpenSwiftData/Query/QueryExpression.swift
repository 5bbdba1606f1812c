/// A store-neutral expression: what a predicate or a sort means, in terms of an entity's
/// attributes and encoded values. The store compiles it (SQLite: to SQL); nothing here is SQL.
package indirect enum QueryExpression: Hashable, Sendable {
    /// An attribute of the fetched entity, by index.
    case attribute(Int)
    /// An encoded value.
    case value(StoredValue)
    /// A Boolean constant.
    case boolean(Bool)
    /// A comparison with the semantics of the operands' Swift type.
    case compare(ComparisonOperator, QueryExpression, QueryExpression, CompareOptions)
    case and(QueryExpression, QueryExpression)
    case or(QueryExpression, QueryExpression)
    case not(QueryExpression)
    /// Integer arithmetic.
    case arithmetic(ArithmeticOperator, QueryExpression, QueryExpression)
    case negate(QueryExpression)
    case conditional(QueryExpression, QueryExpression, QueryExpression)
    /// The first non-NULL operand.
    case coalesce(QueryExpression, QueryExpression)
    /// Whether the operand is NULL.
    case isNull(QueryExpression)
    /// A Boolean that is false where the operand is NULL.
    case falseIfNull(QueryExpression)
    /// A text function with Swift's semantics.
    case text(TextFunction, [QueryExpression])
    /// Whether the operand equals one of the values.
    case inList(QueryExpression, [StoredValue])
    /// A persisted property of the row of a subquery's scope (scope 0 is the fetched entity), by
    /// name.
    case scoped(scope: Int, property: String)
    /// The key of the row of a scope: what identifies it in the store, and what to-one
    /// relationships hold.
    case key(scope: Int)
    /// A query over the models related to a row: a value, whether any exists, or how many.
    case subquery(Subquery)

    /// The models a relationship relates to an owner, and what to compute over them.
    package struct Subquery: Hashable, Sendable {
        /// The scope of the related rows, for ``QueryExpression/scoped(scope:property:)``.
        package var scope: Int
        /// The entity of the related rows.
        package var entity: String
        package var relation: Relation
        /// An extra condition on the related rows.
        package var filter: QueryExpression?
        package var output: Output

        package init(scope: Int, entity: String, relation: Relation, filter: QueryExpression?, output: Output) {
            self.scope = scope
            self.entity = entity
            self.relation = relation
            self.filter = filter
            self.output = output
        }
    }

    /// How the related rows are found from the owner.
    package enum Relation: Hashable, Sendable {
        /// The row whose primary key is the operand (a to-one relationship's key).
        case primaryKey(QueryExpression)
        /// The rows whose to-one relationship `property` refers to the operand (a to-many's inverse).
        case inverse(property: String, equals: QueryExpression)
        /// The rows a many-to-many or one-way to-many relationship pairs with the operand.
        case link(LinkName, ownerIsSource: Bool, owner: QueryExpression)
    }

    package enum Output: Hashable, Sendable {
        /// The value of an expression over the related row (NULL when there is none).
        case value(QueryExpression)
        /// Whether any related row exists.
        case exists
        /// The number of related rows.
        case count
    }

    package enum ComparisonOperator: Hashable, Sendable {
        case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual

        /// The operator that gives the same answer with the operands swapped (`a < b` is `b > a`).
        package var swapped: ComparisonOperator {
            switch self {
            case .equal, .notEqual: self
            case .less: .greater
            case .lessOrEqual: .greaterOrEqual
            case .greater: .less
            case .greaterOrEqual: .lessOrEqual
            }
        }

        /// Whether the operator holds for values above a bound (`>`, `>=`): the ones a store that
        /// orders NaN above every number must keep NaN out of.
        package var admitsGreater: Bool { self == .greater || self == .greaterOrEqual }
    }

    /// How a comparison treats NULL, text and floating-point operands.
    package struct CompareOptions: Hashable, Sendable {
        /// Compares NULLs as values, as Swift's `==` on optionals does (`nil == nil`).
        package var nullSafe = false
        /// The operands are text: compare them by Swift's canonical-equivalence order.
        package var text = false
        /// The operands are floating-point: NaN compares unequal to everything, as in Swift.
        package var floating = false

        package init(nullSafe: Bool = false, text: Bool = false, floating: Bool = false) {
            self.nullSafe = nullSafe
            self.text = text
            self.floating = floating
        }
    }

    package enum ArithmeticOperator: Hashable, Sendable {
        case add, subtract, multiply, divide, remainder
    }

    package enum TextFunction: Hashable, Sendable {
        /// `a.contains(b)`, by Characters.
        case contains
        /// `a.starts(with: b)`, by Characters.
        case startsWith
        /// `a.count`, in Characters.
        case count
        /// `a.localizedStandardContains(b)`.
        case localizedStandardContains
        /// `a.caseInsensitiveCompare(b).rawValue`.
        case caseInsensitiveCompare
        /// `a.localizedCompare(b).rawValue`.
        case localizedCompare
    }
}

/// A sort key: an attribute, or an expression such as a related model's attribute, and a direction.
package struct QuerySort: Hashable, Sendable {
    package var attribute: Int
    package var ascending: Bool
    /// When set, the value to sort by instead of the attribute.
    package var expression: QueryExpression? = nil
    /// Whether the values are text, compared by Swift's order.
    package var isText = false
    /// A locale-aware order of text (``LocalizedStringComparator``) instead of Swift's; a store
    /// that cannot sort by it says so in `canSort(by:)`, and the models are sorted in Swift.
    package var collation: LocalizedStringComparator? = nil

    package init(attribute: Int, ascending: Bool, expression: QueryExpression? = nil, isText: Bool = false,
                 collation: LocalizedStringComparator? = nil) {
        self.attribute = attribute
        self.ascending = ascending
        self.expression = expression
        self.isText = isText
        self.collation = collation
    }
}

extension QuerySort {
    /// Whether rows that tie on every key of `sort` come in descending order of their primary
    /// keys: when the last key is in reverse order. Rows that tie come in the order their models
    /// were first saved, and in the reverse of that order after a reverse key. A reverse sort by
    /// one property is then the forward sort reversed, and an index on the property, which
    /// orders rows that share a value by key, serves either direction by itself.
    package static func keysDescend(after sort: [QuerySort]) -> Bool {
        sort.last.map { !$0.ascending } ?? false
    }
}

/// A fetch in store-neutral terms.
struct QueryPlan: Sendable {
    /// The filter, or `nil` for every row. When `isExact` is false it selects a superset of the
    /// matching rows, and the predicate must be evaluated in Swift on each candidate.
    var filter: QueryExpression?
    /// Whether `filter` selects exactly the matching rows.
    var isExact: Bool
    /// The sort keys; empty with `sortIsExact == false` means "sort in Swift".
    var sort: [QuerySort]
    /// Whether `sort` reproduces the descriptor's order exactly.
    var sortIsExact: Bool
}

extension QueryExpression {
    /// A comparison of a stored property with a value, with the property on the left (`5 < $0.price`
    /// is `$0.price > 5`); `nil` when neither operand is a stored property or the other no value.
    package static func storedPropertyAgainstValue(
        _ operation: ComparisonOperator, _ lhs: QueryExpression, _ rhs: QueryExpression
    ) -> (property: QueryExpression, value: StoredValue, operation: ComparisonOperator)? {
        switch (lhs, rhs) {
        case (.attribute, .value(let value)), (.scoped, .value(let value)): (lhs, value, operation)
        case (.value(let value), .attribute), (.value(let value), .scoped): (rhs, value, operation.swapped)
        default: nil
        }
    }

    /// A floating-point comparison of a stored property with a number that is not NaN, with the
    /// property on the left; `nil` for any other comparison.
    ///
    /// Stores compile these without the NaN test that wraps other floating-point comparisons, as a
    /// plain comparison with the column, which an index on the property can serve.
    package static func storedPropertyAgainstNumber(
        _ operation: ComparisonOperator, _ lhs: QueryExpression, _ rhs: QueryExpression
    ) -> (property: QueryExpression, number: Double, operation: ComparisonOperator)? {
        guard let (property, value, operation) = storedPropertyAgainstValue(operation, lhs, rhs),
              case .real(let number) = value, !number.isNaN else { return nil }
        return (property, number, operation)
    }
}
