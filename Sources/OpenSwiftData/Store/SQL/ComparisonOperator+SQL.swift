/// SQL text shared by the stores that speak SQL (SQLite here, PostgreSQL in its own target): the
/// query expression itself carries none.
extension QueryExpression.ComparisonOperator {
    /// The SQL operator; `nullSafe` spells `==` and `!=` when NULL compares as a value.
    package func sqlSymbol(nullSafe: (equal: String, notEqual: String)?) -> String {
        switch self {
        case .equal: nullSafe?.equal ?? "="
        case .notEqual: nullSafe?.notEqual ?? "<>"
        case .less: "<"
        case .lessOrEqual: "<="
        case .greater: ">"
        case .greaterOrEqual: ">="
        }
    }
}
