import SwiftDiagnostics
import SwiftParser
import SwiftParserDiagnostics
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros

/// Expands every OpenSwiftData macro in the Swift source on standard input, as the compiler
/// would, and prints the result:
///
/// ```sh
/// .build/debug/OpenSwiftDataMacros-tool --expand [--subclass] [--module NAME] [--file NAME] < Trip.swift
/// ```
///
/// The output is three parts separated by the character U+001E: the expanded source; the macros'
/// diagnostics, one per line (`line:column: severity: message`); and the syntax errors of the
/// expanded source, if any. `--subclass` expands `@Model` as for a class whose superclass is a
/// model (the compiler then asks for no conformances).
///
/// The macro tests read this output rather than linking swift-syntax themselves: a test linking it
/// would build it a second time, for the target, beside the plugin's copy built for the host.
struct ExpansionPrinter {
    var ofSubclass = false
    var moduleName = "TestModule"
    var fileName = "test.swift"

    /// Reads the options that follow `--expand`.
    init(options: [String]) {
        var remaining = options[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--subclass": ofSubclass = true
            case "--module": moduleName = remaining.popFirst() ?? moduleName
            case "--file": fileName = remaining.popFirst() ?? fileName
            default: break
            }
        }
    }

    /// The macros by the names the library declares them with, with the conformances the compiler
    /// tells `@Model` the class still lacks.
    private var macroSpecs: [String: MacroSpec] {
        let conformances: [TypeSyntax] = ofSubclass ? [] : ["PersistentModel", "Observable", "_PersistentModelRoot"]
        return [
            "Model": MacroSpec(type: ModelMacro.self, conformances: conformances),
            "_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self),
            "Attribute": MacroSpec(type: MarkerMacro.self),
            "Relationship": MacroSpec(type: MarkerMacro.self),
            "Transient": MacroSpec(type: MarkerMacro.self),
            "Unique": MacroSpec(type: UniqueMacro.self),
            "Index": MacroSpec(type: IndexMacro.self),
            "ModelActor": MacroSpec(type: ModelActorMacro.self, conformances: ["ModelActor"]),
        ]
    }

    func run() {
        var source = ""
        while let line = readLine(strippingNewline: false) { source += line }
        let file = Parser.parse(source: source)
        let context = BasicMacroExpansionContext(sourceFiles: [file: .init(moduleName: moduleName, fullFilePath: fileName)])
        let expanded = file.expand(
            macroSpecs: macroSpecs,
            contextGenerator: { syntax in BasicMacroExpansionContext(sharingWith: context, lexicalContext: syntax.allMacroLexicalContexts()) },
            indentationWidth: .spaces(4))
        let converter = SourceLocationConverter(fileName: fileName, tree: file)
        let diagnostics = context.diagnostics.map { diagnostic in
            let location = diagnostic.location(converter: converter)
            return "\(location.line):\(location.column): \(diagnostic.diagMessage.severity): \(diagnostic.message)"
        }
        let syntaxErrors = ParseDiagnosticsGenerator.diagnostics(for: expanded)
        let errorText = syntaxErrors.isEmpty ? "" : DiagnosticsFormatter.annotatedSource(tree: expanded, diags: syntaxErrors)
        print(expanded.description + "\u{1E}" + diagnostics.joined(separator: "\n") + "\u{1E}" + errorText, terminator: "")
    }
}
