import SwiftSyntax
import SwiftSyntaxMacros

/// `@Attribute`, `@Relationship` and `@Transient`: markers that `@Model` reads; they expand to nothing.
public struct MarkerMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}

/// `#Unique<Model>([\.a, \.b], [\.c])`: records the model's uniqueness constraints.
public struct UniqueMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        [keyPathGroups(node, member: "_osdUniquenessConstraints")]
    }
}

/// `#Index<Model>([\.a], [\.b, \.c])`: records the model's indexes.
public struct IndexMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        [keyPathGroups(node, member: "_osdIndexes")]
    }
}

/// Emits `public static var member: [[AnyKeyPath]]` with each `\.x` rooted at the macro's generic type.
private func keyPathGroups(_ node: some FreestandingMacroExpansionSyntax, member: String) -> DeclSyntax {
    let root = node.genericArgumentClause?.arguments.first?.argument.trimmedDescription ?? "Self"
    let groups = node.arguments.map { argument -> String in
        guard let array = argument.expression.as(ArrayExprSyntax.self) else {
            return "[]"
        }
        let paths = array.elements.map { element -> String in
            let text = element.expression.trimmedDescription
            return text.hasPrefix("\\.") ? "\\\(root)" + text.dropFirst() : text
        }
        return "[" + paths.joined(separator: ", ") + "]"
    }
    return "public static var \(raw: member): [[Swift.AnyKeyPath]] { [\(raw: groups.joined(separator: ", "))] }"
}
