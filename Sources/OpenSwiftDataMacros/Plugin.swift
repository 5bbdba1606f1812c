import OpenSwiftDataMacrosKit
import SwiftCompilerPlugin
import SwiftSyntax
import SwiftSyntaxMacros

// The compiler asks this plugin for `OpenSwiftDataMacros.<type>` (the module `#externalMacro`
// names), so each macro has a type of that name here, which hands the expansion to its
// implementation in `OpenSwiftDataMacrosKit`.

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

/// `@Model`, as ``OpenSwiftDataMacrosKit/ModelMacro`` expands it.
public struct ModelMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    typealias Implementation = OpenSwiftDataMacrosKit.ModelMacro

    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try Implementation.expansion(of: node, providingMembersOf: declaration, conformingTo: protocols, in: context)
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        try Implementation.expansion(of: node, attachedTo: declaration, providingAttributesFor: member, in: context)
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        try Implementation.expansion(of: node, attachedTo: declaration, providingExtensionsOf: type, conformingTo: protocols, in: context)
    }
}

/// `@_PersistedProperty`, as ``OpenSwiftDataMacrosKit/PersistedPropertyMacro`` expands it.
public struct PersistedPropertyMacro: AccessorMacro, PeerMacro {
    typealias Implementation = OpenSwiftDataMacrosKit.PersistedPropertyMacro

    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        try Implementation.expansion(of: node, providingAccessorsOf: declaration, in: context)
    }

    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try Implementation.expansion(of: node, providingPeersOf: declaration, in: context)
    }
}

/// `@Attribute`, `@Relationship` and `@Transient`, as ``OpenSwiftDataMacrosKit/MarkerMacro``
/// expands them.
public struct MarkerMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try OpenSwiftDataMacrosKit.MarkerMacro.expansion(of: node, providingPeersOf: declaration, in: context)
    }
}

/// `#Unique`, as ``OpenSwiftDataMacrosKit/UniqueMacro`` expands it.
public struct UniqueMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try OpenSwiftDataMacrosKit.UniqueMacro.expansion(of: node, in: context)
    }
}

/// `#Index`, as ``OpenSwiftDataMacrosKit/IndexMacro`` expands it.
public struct IndexMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try OpenSwiftDataMacrosKit.IndexMacro.expansion(of: node, in: context)
    }
}

/// `@ModelActor`, as ``OpenSwiftDataMacrosKit/ModelActorMacro`` expands it.
public struct ModelActorMacro: MemberMacro, ExtensionMacro {
    typealias Implementation = OpenSwiftDataMacrosKit.ModelActorMacro

    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try Implementation.expansion(of: node, providingMembersOf: declaration, conformingTo: protocols, in: context)
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        try Implementation.expansion(of: node, attachedTo: declaration, providingExtensionsOf: type, conformingTo: protocols, in: context)
    }
}
