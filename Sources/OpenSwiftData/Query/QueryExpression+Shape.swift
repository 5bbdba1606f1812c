extension QueryExpression {
    /// The expression with each chain of `AND`s (and each of `OR`s) regrouped as a balanced tree of
    /// the same operands in the same order.
    ///
    /// Both operators are associative, in Swift and in SQL's three-valued logic, so the answer is
    /// the same, and evaluated left to right the operands run in the same order. A predicate built
    /// at run time from thousands of conditions is a chain that deep; balanced, it nests only as
    /// deep as the logarithm of their number, which every compiler's recursion and SQLite's parser
    /// stack (a hundred levels) take. The chain itself is walked without recursion.
    package var balanced: QueryExpression {
        switch self {
        case .and(let lhs, let rhs) where !lhs.isConjunction && !rhs.isConjunction:
            return .and(lhs.balanced, rhs.balanced)
        case .or(let lhs, let rhs) where !lhs.isDisjunction && !rhs.isDisjunction:
            return .or(lhs.balanced, rhs.balanced)
        case .and, .or:
            let isConjunction = self.isConjunction
            var operands: [QueryExpression] = []
            var pending = [self]
            while let next = pending.popLast() {
                switch next {
                case .and(let lhs, let rhs) where isConjunction, .or(let lhs, let rhs) where !isConjunction:
                    pending.append(rhs)
                    pending.append(lhs)
                default:
                    operands.append(next.balanced)
                }
            }
            return Self.chain(operands[...], isConjunction: isConjunction)
        case .attribute, .value, .boolean, .scoped, .key:
            return self
        case .compare(let operation, let lhs, let rhs, let options):
            return .compare(operation, lhs.balanced, rhs.balanced, options)
        case .not(let operand):
            return .not(operand.balanced)
        case .arithmetic(let operation, let lhs, let rhs):
            return .arithmetic(operation, lhs.balanced, rhs.balanced)
        case .negate(let operand):
            return .negate(operand.balanced)
        case .conditional(let test, let yes, let no):
            return .conditional(test.balanced, yes.balanced, no.balanced)
        case .coalesce(let lhs, let rhs):
            return .coalesce(lhs.balanced, rhs.balanced)
        case .isNull(let operand):
            return .isNull(operand.balanced)
        case .falseIfNull(let operand):
            return .falseIfNull(operand.balanced)
        case .text(let function, let arguments):
            return .text(function, arguments.map(\.balanced))
        case .inList(let operand, let values):
            return .inList(operand.balanced, values)
        case .subquery(var query):
            query.filter = query.filter?.balanced
            if case .value(let value) = query.output { query.output = .value(value.balanced) }
            query.relation = switch query.relation {
            case .primaryKey(let key): .primaryKey(key.balanced)
            case .inverse(let property, let key): .inverse(property: property, equals: key.balanced)
            case .link(let link, let ownerIsSource, let owner): .link(link, ownerIsSource: ownerIsSource, owner: owner.balanced)
            }
            return .subquery(query)
        }
    }

    private var isConjunction: Bool { if case .and = self { true } else { false } }
    private var isDisjunction: Bool { if case .or = self { true } else { false } }

    /// The operands joined by `AND` (or `OR`), halves first.
    private static func chain(_ operands: ArraySlice<QueryExpression>, isConjunction: Bool) -> QueryExpression {
        guard operands.count > 1 else { return operands.first ?? .boolean(isConjunction) }
        let middle = operands.startIndex + operands.count / 2
        let lhs = chain(operands[..<middle], isConjunction: isConjunction)
        let rhs = chain(operands[middle...], isConjunction: isConjunction)
        return isConjunction ? .and(lhs, rhs) : .or(lhs, rhs)
    }

    /// Calls `body` with each expression this one is made of, its subquery's included.
    private func forEachChild(_ body: (QueryExpression) -> Void) {
        switch self {
        case .attribute, .value, .boolean, .scoped, .key:
            break
        case .compare(_, let lhs, let rhs, _), .and(let lhs, let rhs), .or(let lhs, let rhs),
             .arithmetic(_, let lhs, let rhs), .coalesce(let lhs, let rhs):
            body(lhs)
            body(rhs)
        case .not(let operand), .negate(let operand), .isNull(let operand), .falseIfNull(let operand), .inList(let operand, _):
            body(operand)
        case .conditional(let test, let yes, let no):
            body(test)
            body(yes)
            body(no)
        case .text(_, let arguments):
            arguments.forEach(body)
        case .subquery(let query):
            query.filter.map(body)
            if case .value(let value) = query.output { body(value) }
            switch query.relation {
            case .primaryKey(let key), .inverse(_, let key), .link(_, _, let key): body(key)
            }
        }
    }

    /// How deep an expression nests and how many values it binds.
    package struct Shape {
        /// The longest path from the root to a leaf, counting both (a leaf alone is 1).
        package var depth = 0
        /// The values it binds: each value, and each value of a list.
        package var values = 0

        /// Whether a store whose statements take at most `parameterLimit` values can be handed the
        /// expression: nested no deeper than ``QueryExpression/maximumStoreDepth``, and leaving a
        /// hundred parameters for the rest of the statement.
        package func fitsAStatement(parameterLimit: Int) -> Bool {
            depth <= QueryExpression.maximumStoreDepth && values <= parameterLimit - 100
        }
    }

    /// The expression's depth and bound values, counted without recursion.
    package var shape: Shape {
        var shape = Shape()
        var pending: [(QueryExpression, Int)] = [(self, 1)]
        while let (node, level) = pending.popLast() {
            shape.depth = max(shape.depth, level)
            switch node {
            case .value: shape.values += 1
            case .inList(_, let list): shape.values += list.count
            default: break
            }
            node.forEachChild { pending.append(($0, level + 1)) }
        }
        return shape
    }

    /// The deepest an expression given to a built-in store nests. A predicate built at run time
    /// can nest deeper (once its chains are balanced, only through other operators than `&&` and
    /// `||`); such a filter is evaluated in Swift, as Foundation evaluates it, rather than compiled
    /// by recursion as deep, and SQLite's parser would refuse it.
    package static let maximumStoreDepth = 64
}
