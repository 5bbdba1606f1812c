import OpenSwiftDataMacrosKit
import SwiftCompilerPlugin
import SwiftSyntaxMacros

// The compiler asks this plugin for `OpenSwiftDataMacros.<type>` (the module `#externalMacro`
// names), so each macro has a type of that name here, which hands its expansions to its
// implementation in `OpenSwiftDataMacrosKit` (see ForwardingMacros.swift).

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

/// `@Model`.
struct ModelMacro: ForwardingMemberMacro, ForwardingMemberAttributeMacro, ForwardingExtensionMacro {
    typealias Implementation = OpenSwiftDataMacrosKit.ModelMacro
}

/// `@_PersistedProperty`, which `@Model` attaches to each stored property.
struct PersistedPropertyMacro: ForwardingAccessorMacro, ForwardingPeerMacro {
    typealias Implementation = OpenSwiftDataMacrosKit.PersistedPropertyMacro
}

/// `@Attribute`, `@Relationship` and `@Transient`.
struct MarkerMacro: ForwardingPeerMacro {
    typealias Implementation = OpenSwiftDataMacrosKit.MarkerMacro
}

/// `#Unique`.
struct UniqueMacro: ForwardingDeclarationMacro {
    typealias Implementation = OpenSwiftDataMacrosKit.UniqueMacro
}

/// `#Index`.
struct IndexMacro: ForwardingDeclarationMacro {
    typealias Implementation = OpenSwiftDataMacrosKit.IndexMacro
}

/// `@ModelActor`.
struct ModelActorMacro: ForwardingMemberMacro, ForwardingExtensionMacro {
    typealias Implementation = OpenSwiftDataMacrosKit.ModelActorMacro
}
