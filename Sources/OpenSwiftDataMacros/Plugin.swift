import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that hosts every OpenSwiftData macro.
@main
struct OpenSwiftDataMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        ModelMacro.self,
        PersistedPropertyMacro.self,
        MarkerMacro.self,
        UniqueMacro.self,
        IndexMacro.self,
        ModelActorMacro.self,
    ]
}
