/// Parses an `osd query --where` expression into a ``QuerySyntax`` tree.
///
/// Grammar (precedence from low to high): `a || b`, `a && b`, `!a`, comparisons (`== != < <= > >=`),
/// then operands: paths (`name`, `trip.name`, `name.starts(with: "P")`), numbers, strings in double
/// quotes with Swift's escapes, `true`, `false`, `nil`, and parentheses.
struct QueryParser {
    private enum Token: Equatable {
        case identifier(String)
        case number(String)
        case string(String)
        case symbol(String)
        case end
    }

    private var tokens: [(token: Token, column: Int)] = []
    private var position = 0

    /// Parses `text`, or throws a ``QueryError`` at the column where it stops making sense.
    static func parse(_ text: String) throws(QueryError) -> QuerySyntax {
        var parser = QueryParser()
        parser.tokens = try tokenize(text)
        let expression = try parser.parseOr()
        guard parser.current.token == .end else {
            throw QueryError(column: parser.current.column, message: "expected an operator or the end of the expression")
        }
        return expression
    }

    private var current: (token: Token, column: Int) { tokens[position] }

    private mutating func advance() { if position < tokens.count - 1 { position += 1 } }

    private mutating func accept(_ symbol: String) -> Bool {
        guard current.token == .symbol(symbol) else { return false }
        advance()
        return true
    }

    private mutating func expect(_ symbol: String) throws(QueryError) {
        guard accept(symbol) else { throw QueryError(column: current.column, message: "expected \(symbol)") }
    }

    private mutating func parseOr() throws(QueryError) -> QuerySyntax {
        var result = try parseAnd()
        while accept("||") { result = .or(result, try parseAnd()) }
        return result
    }

    private mutating func parseAnd() throws(QueryError) -> QuerySyntax {
        var result = try parseUnary()
        while accept("&&") { result = .and(result, try parseUnary()) }
        return result
    }

    private mutating func parseUnary() throws(QueryError) -> QuerySyntax {
        let column = current.column
        if accept("!") { return .not(try parseUnary(), column: column) }
        return try parseComparison()
    }

    private mutating func parseComparison() throws(QueryError) -> QuerySyntax {
        let lhs = try parseOperand()
        for comparison in [QuerySyntax.Comparison.equal, .notEqual, .lessOrEqual, .greaterOrEqual, .less, .greater] {
            let column = current.column
            if accept(comparison.rawValue) {
                return .compare(comparison, lhs, try parseOperand(), column: column)
            }
        }
        return lhs
    }

    private mutating func parseOperand() throws(QueryError) -> QuerySyntax {
        let (token, column) = current
        switch token {
        case .number(let text):
            advance()
            return .literal(.number(text), column: column)
        case .string(let text):
            advance()
            return .literal(.string(text), column: column)
        case .symbol("-"):
            advance()
            guard case .number(let text) = current.token else { throw QueryError(column: current.column, message: "expected a number after -") }
            advance()
            return .literal(.number("-" + text), column: column)
        case .symbol("("):
            advance()
            let inner = try parseOr()
            try expect(")")
            return inner
        case .identifier("true"), .identifier("false"):
            advance()
            return .literal(.boolean(token == .identifier("true")), column: column)
        case .identifier("nil"):
            advance()
            return .literal(.null, column: column)
        case .identifier:
            return .path(try parsePath(), column: column)
        case .end:
            throw QueryError(column: column, message: "expected a property, a value or (")
        case .symbol(let symbol):
            throw QueryError(column: column, message: "expected a property, a value or ( but found \(symbol)")
        }
    }

    private mutating func parsePath() throws(QueryError) -> [QuerySyntax.Member] {
        var members: [QuerySyntax.Member] = []
        repeat {
            guard case .identifier(let name) = current.token else {
                throw QueryError(column: current.column, message: "expected a property name")
            }
            var member = QuerySyntax.Member(name: name, arguments: nil, column: current.column)
            advance()
            if accept("(") {
                var arguments: [QuerySyntax] = []
                if !accept(")") {
                    repeat {
                        // An argument label (`with:`) is accepted and ignored: each member has one meaning.
                        if case .identifier = current.token, tokens[min(position + 1, tokens.count - 1)].token == .symbol(":") {
                            advance()
                            advance()
                        }
                        arguments.append(try parseOr())
                    } while accept(",")
                    try expect(")")
                }
                member.arguments = arguments
            }
            members.append(member)
        } while accept(".")
        return members
    }

    private static func tokenize(_ text: String) throws(QueryError) -> [(token: Token, column: Int)] {
        var tokens: [(token: Token, column: Int)] = []
        let characters = Array(text)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let column = index + 1
            if character.isWhitespace {
                index += 1
            } else if character.isLetter || character == "_" {
                var name = ""
                while index < characters.count, characters[index].isLetter || characters[index].isNumber || characters[index] == "_" {
                    name.append(characters[index])
                    index += 1
                }
                tokens.append((.identifier(name), column))
            } else if character.isNumber {
                var number = ""
                while index < characters.count, characters[index].isNumber || characters[index] == "." || characters[index] == "_"
                        || ((characters[index] == "e" || characters[index] == "E") && index + 1 < characters.count)
                        || ((characters[index] == "-" || characters[index] == "+") && (number.last == "e" || number.last == "E")) {
                    if characters[index] != "_" { number.append(characters[index]) }
                    index += 1
                }
                guard Double(number) != nil else { throw QueryError(column: column, message: "\(number) is not a number") }
                tokens.append((.number(number), column))
            } else if character == "\"" {
                var value = ""
                index += 1
                var closed = false
                while index < characters.count {
                    let next = characters[index]
                    if next == "\"" { closed = true; index += 1; break }
                    if next == "\\" {
                        guard index + 1 < characters.count else { break }
                        index += 1
                        switch characters[index] {
                        case "n": value.append("\n")
                        case "t": value.append("\t")
                        case "r": value.append("\r")
                        case "0": value.append("\0")
                        case "\"": value.append("\"")
                        case "\\": value.append("\\")
                        case "'": value.append("'")
                        case "u":
                            // \u{XXXX}
                            guard index + 1 < characters.count, characters[index + 1] == "{",
                                  let close = characters[(index + 2)...].firstIndex(of: "}"),
                                  let code = UInt32(String(characters[(index + 2)..<close]), radix: 16),
                                  let scalar = Unicode.Scalar(code)
                            else { throw QueryError(column: index, message: "a \\u escape is written \\u{1F600}") }
                            value.unicodeScalars.append(scalar)
                            index = close
                        default:
                            throw QueryError(column: index, message: "unknown escape \\\(characters[index])")
                        }
                        index += 1
                        continue
                    }
                    value.append(next)
                    index += 1
                }
                guard closed else { throw QueryError(column: column, message: "this string has no closing quote") }
                tokens.append((.string(value), column))
            } else {
                let two = index + 1 < characters.count ? String(characters[index...index + 1]) : ""
                if ["==", "!=", "<=", ">=", "&&", "||"].contains(two) {
                    tokens.append((.symbol(two), column))
                    index += 2
                } else if "<>!().,:-".contains(character) {
                    tokens.append((.symbol(String(character)), column))
                    index += 1
                } else {
                    throw QueryError(column: column, message: "unexpected character \(character)")
                }
            }
        }
        tokens.append((.end, characters.count + 1))
        return tokens
    }
}
