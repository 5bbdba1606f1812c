import SwiftDiagnostics
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
        [keyPathGroups(node, member: "_osdUniquenessConstraints", kinds: [], in: context)]
    }
}

/// `#Index<Model>([\.a], [\.b, \.c])` or `#Index<Model>(.binary([\.a]), .rtree([\.b]))`: records
/// the model's indexes (every kind is stored as a binary index).
public struct IndexMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        [keyPathGroups(node, member: "_osdIndexes", kinds: ["binary", "rtree"], in: context)]
    }
}

/// Emits `public static var member: [[AnyKeyPath]]` with each `\.x` rooted at the macro's generic type.
///
/// Each argument is an array literal of key paths or, for the names in `kinds`, a call such as
/// `.binary([\.x])`. Any other argument (a variable, say) is reported: the macro sees only source
/// text, and dropping a constraint it cannot read would change what the store enforces.
private func keyPathGroups(
    _ node: some FreestandingMacroExpansionSyntax, member: String, kinds: Set<String>, in context: some MacroExpansionContext
) -> DeclSyntax {
    let root = node.genericArgumentClause?.arguments.first?.argument.trimmedDescription ?? "Self"
    let groups = node.arguments.compactMap { argument -> String? in
        guard let array = keyPathArray(argument.expression, kinds: kinds) else {
            context.diagnose(Diagnostic(node: argument.expression, message: MacroArgumentDiagnostic(macro: node.macroName.text, kinds: kinds)))
            return nil
        }
        let paths = array.elements.map { element -> String in
            let text = element.expression.trimmedDescription
            return text.hasPrefix("\\.") ? "\\\(root)" + text.dropFirst() : text
        }
        return "[" + paths.joined(separator: ", ") + "]"
    }
    return "public static var \(raw: member): [[Swift.AnyKeyPath]] { [\(raw: groups.joined(separator: ", "))] }"
}

/// The array literal of key paths an argument spells: `[\.a, \.b]`, or `.binary([\.a, \.b])`
/// (also written `Schema.Index<T>.Types<T>.binary(…)`) for a kind in `kinds`.
private func keyPathArray(_ expression: ExprSyntax, kinds: Set<String>) -> ArrayExprSyntax? {
    if let array = expression.as(ArrayExprSyntax.self) { return array }
    guard let call = expression.as(FunctionCallExprSyntax.self),
          let callee = call.calledExpression.as(MemberAccessExprSyntax.self),
          kinds.contains(callee.declName.baseName.text),
          call.arguments.count == 1, call.trailingClosure == nil,
          let argument = call.arguments.first, argument.label == nil else { return nil }
    return argument.expression.as(ArrayExprSyntax.self)
}

/// An argument of `#Unique` or `#Index` that is not written out as key paths.
private struct MacroArgumentDiagnostic: DiagnosticMessage {
    let macro: String
    let kinds: Set<String>

    var message: String {
        let forms = kinds.isEmpty ? "an array literal of key paths, such as '[\\.name]'"
            : "an array literal of key paths, such as '[\\.name]', or " + kinds.sorted().map { "'.\($0)([\\.name])'" }.joined(separator: " or ")
        return "#\(macro) needs each argument written out as \(forms): the macro reads the source, not values"
    }

    var diagnosticID: MessageID { MessageID(domain: "OpenSwiftData", id: "keyPathArgument") }
    var severity: DiagnosticSeverity { .error }
}
