import SwiftCompilerPlugin
import SwiftSyntaxMacros

// The compiler asks this plugin for `OpenSwiftDataMacros.<type>`, the module and type each
// `#externalMacro` names; the types are in Macros/.

/// The compiler plugin that hosts every OpenSwiftData macro.
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
