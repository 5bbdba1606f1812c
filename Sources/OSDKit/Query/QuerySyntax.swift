/// The syntax tree of an `osd query --where` expression: a small predicate language over a
/// store's schema, written as a `#Predicate` body is (`rating >= 4 && name.contains("Paris")`).
indirect enum QuerySyntax: Equatable {
    /// A path from the queried model: properties, relationships, and text or collection members
    /// (`trip.name`, `name.count`, `tags.isEmpty`, `name.starts(with: "A")`).
    case path([Member], column: Int)
    case literal(Literal, column: Int)
    case not(QuerySyntax, column: Int)
    case and(QuerySyntax, QuerySyntax)
    case or(QuerySyntax, QuerySyntax)
    case compare(Comparison, QuerySyntax, QuerySyntax, column: Int)

    /// One step of a path: a name, and the arguments when it is a call.
    struct Member: Equatable {
        var name: String
        var arguments: [QuerySyntax]?
        var column: Int
    }

    enum Literal: Equatable {
        case number(String)
        case string(String)
        case boolean(Bool)
        case null
    }

    enum Comparison: String, Equatable {
        case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    }

    /// The 1-based column where the expression starts.
    var column: Int {
        switch self {
        case .path(_, let column), .literal(_, let column), .not(_, let column), .compare(_, _, _, let column): column
        case .and(let lhs, _), .or(let lhs, _): lhs.column
        }
    }
}

/// A syntax or meaning error at a column of the expression.
struct QueryError: Error, Equatable {
    let column: Int
    let message: String

    /// The message with the expression and a caret under the column.
    func render(_ expression: String) -> String {
        "\(message)\n  \(expression)\n  \(String(repeating: " ", count: max(column - 1, 0)))^"
    }
}
