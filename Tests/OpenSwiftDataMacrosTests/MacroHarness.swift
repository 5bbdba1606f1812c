import SwiftDiagnostics
import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosGenericTestSupport
import Testing
import OpenSwiftDataMacrosKit

/// The macros of OpenSwiftData, by the names the library declares them with, for a root model class.
let modelMacros = macros(modelConformances: ["PersistentModel", "Observable", "_PersistentModelRoot"])

/// The macros, with the conformances the compiler tells `@Model` the class still lacks: all of
/// them for a root class, none for a subclass of a model (it inherits them).
func macros(modelConformances: [String]) -> [String: MacroSpec] { [
    "Model": MacroSpec(type: ModelMacro.self, conformances: modelConformances.map { TypeSyntax(stringLiteral: $0) }),
    "_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self),
    "Attribute": MacroSpec(type: MarkerMacro.self),
    "Relationship": MacroSpec(type: MarkerMacro.self),
    "Transient": MacroSpec(type: MarkerMacro.self),
    "Unique": MacroSpec(type: UniqueMacro.self),
    "Index": MacroSpec(type: IndexMacro.self),
    "ModelActor": MacroSpec(type: ModelActorMacro.self, conformances: ["ModelActor"]),
] }

/// The result of expanding OpenSwiftData's macros in a piece of source.
struct Expansion {
    var source: String
    var diagnostics: [String]

    /// Expands every macro in `source`, recursively; `ofSubclass` expands `@Model` as the compiler
    /// does for a class whose superclass is a model.
    init(_ source: String, ofSubclass: Bool = false) {
        let specs = ofSubclass ? macros(modelConformances: []) : modelMacros
        let file = Parser.parse(source: source)
        let context = BasicMacroExpansionContext(sourceFiles: [file: .init(moduleName: "App", fullFilePath: "App.swift")])
        self.source = file.expand(macroSpecs: specs, contextGenerator: { _ in context }).description
        diagnostics = context.diagnostics.map(\.message)
    }

    /// Whether the expanded source contains `fragment`, ignoring differences in whitespace.
    func contains(_ fragment: String) -> Bool {
        squeeze(source).contains(squeeze(fragment))
    }

    private func squeeze(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}

/// Asserts an exact expansion with Swift Testing.
func assertExpansion(
    _ source: String, expandedSource: String, diagnostics: [DiagnosticSpec] = [],
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) {
    assertMacroExpansion(
        source, expandedSource: expandedSource, diagnostics: diagnostics, macroSpecs: modelMacros,
        failureHandler: { failure in
            Issue.record(
                Comment(rawValue: failure.message),
                sourceLocation: SourceLocation(
                    fileID: failure.location.fileID, filePath: failure.location.filePath,
                    line: failure.location.line, column: failure.location.column))
        },
        fileID: fileID, filePath: filePath, line: line, column: column)
}

extension Expansion: CustomTestStringConvertible {
    var testDescription: String { "the expansion (\(source.count) characters; diagnostics: \(diagnostics))" }
}
