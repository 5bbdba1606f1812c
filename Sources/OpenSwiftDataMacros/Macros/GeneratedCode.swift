import SwiftSyntax

/// Declarations and accessors a macro writes out as Swift source, with string interpolation as
/// swift-syntax's builders take it (`\(raw: text)`), and handed to the compiler as written.
///
/// The compiler parses an expansion's text itself. Building a `DeclSyntax` from a string literal
/// parses it in the plugin first, only to print it again: for `@Model`'s members and each
/// property's accessors, that parse took about a fifth of the compile time of a file of models
/// (in a debug build, the plugin runs a debug build of swift-syntax). ``declaration`` and
/// ``accessor`` skip it: a placeholder node whose one token is the whole text, which the plugin
/// reads only as text because the macros pass their expansions on unformatted (`LaidOutMacro`).
/// The macro tests parse every expansion (`--expand` reports its syntax errors).
struct GeneratedCode: ExpressibleByStringInterpolation {
    /// The Swift source.
    var text: String

    init(stringLiteral text: String) {
        self.text = text
    }

    init(stringInterpolation: Interpolation) {
        text = stringInterpolation.text
    }

    /// The source as a declaration for the macro's result, unparsed.
    var declaration: DeclSyntax {
        DeclSyntax(MissingDeclSyntax(placeholder: .identifier(text)))
    }

    /// The source as an accessor for the macro's result, unparsed.
    var accessor: AccessorDeclSyntax {
        AccessorDeclSyntax(accessorSpecifier: .identifier(text))
    }

    struct Interpolation: StringInterpolationProtocol {
        var text = ""

        init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + 16 * interpolationCount)
        }

        mutating func appendLiteral(_ literal: String) {
            text += literal
        }

        /// Source text, as written.
        mutating func appendInterpolation(raw value: some CustomStringConvertible) {
            text += value.description
        }

        /// A string literal whose value is `value`.
        mutating func appendInterpolation(literal value: String) {
            text += StringLiteralExprSyntax(content: value).description
        }
    }
}
