extension QueryPlan {
    /// Whether the plan's filter and sort read nothing but the fetched row's own attributes (no
    /// relationship, no related row, nothing left to Swift): then whether a row matches, and where
    /// it sorts, depends on that row alone, and a save can be followed from the rows it changed.
    func isRowLocal(in entity: Schema.Entity) -> Bool {
        guard isExact, sortIsExact else { return false }
        if let filter, !filter.readsOnlyOwnAttributes(of: entity) { return false }
        return sort.allSatisfy { key in
            if let expression = key.expression { return expression == .key(scope: 0) }
            return entity.fields.indices.contains(key.attribute) && entity.fields[key.attribute].relationship == nil
        }
    }
}

extension QueryExpression {
    /// Whether the expression reads only attributes (not relationships) of the fetched row.
    func readsOnlyOwnAttributes(of entity: Schema.Entity) -> Bool {
        switch self {
        case .attribute(let index):
            return entity.fields.indices.contains(index) && entity.fields[index].relationship == nil
        case .value, .boolean:
            return true
        case .key(let scope):
            return scope == 0
        case .scoped, .subquery:
            return false
        case .compare(_, let lhs, let rhs, _), .and(let lhs, let rhs), .or(let lhs, let rhs),
             .arithmetic(_, let lhs, let rhs), .coalesce(let lhs, let rhs):
            return lhs.readsOnlyOwnAttributes(of: entity) && rhs.readsOnlyOwnAttributes(of: entity)
        case .not(let operand), .negate(let operand), .isNull(let operand), .falseIfNull(let operand),
             .inList(let operand, _):
            return operand.readsOnlyOwnAttributes(of: entity)
        case .conditional(let condition, let then, let otherwise):
            return condition.readsOnlyOwnAttributes(of: entity) && then.readsOnlyOwnAttributes(of: entity)
                && otherwise.readsOnlyOwnAttributes(of: entity)
        case .text(_, let operands):
            return operands.allSatisfy { $0.readsOnlyOwnAttributes(of: entity) }
        }
    }
}
