import SwiftSyntax
import SwiftSyntaxMacros

// One protocol per macro role: a macro type of the plugin names its implementation in
// `OpenSwiftDataMacrosKit` and takes, for each role it plays, the expansion that hands the work to it.

/// A macro whose expansions are those of `Implementation`.
protocol ForwardingMacro {
    associatedtype Implementation
}

/// Adds members as `Implementation` does.
protocol ForwardingMemberMacro: ForwardingMacro, MemberMacro where Implementation: MemberMacro {}

extension ForwardingMemberMacro {
    static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try Implementation.expansion(of: node, providingMembersOf: declaration, conformingTo: protocols, in: context)
    }
}

/// Attaches attributes to members as `Implementation` does.
protocol ForwardingMemberAttributeMacro: ForwardingMacro, MemberAttributeMacro where Implementation: MemberAttributeMacro {}

extension ForwardingMemberAttributeMacro {
    static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        try Implementation.expansion(of: node, attachedTo: declaration, providingAttributesFor: member, in: context)
    }
}

/// Adds extensions as `Implementation` does.
protocol ForwardingExtensionMacro: ForwardingMacro, ExtensionMacro where Implementation: ExtensionMacro {}

extension ForwardingExtensionMacro {
    static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        try Implementation.expansion(of: node, attachedTo: declaration, providingExtensionsOf: type, conformingTo: protocols, in: context)
    }
}

/// Adds accessors as `Implementation` does.
protocol ForwardingAccessorMacro: ForwardingMacro, AccessorMacro where Implementation: AccessorMacro {}

extension ForwardingAccessorMacro {
    static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        try Implementation.expansion(of: node, providingAccessorsOf: declaration, in: context)
    }
}

/// Adds peers as `Implementation` does.
protocol ForwardingPeerMacro: ForwardingMacro, PeerMacro where Implementation: PeerMacro {}

extension ForwardingPeerMacro {
    static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try Implementation.expansion(of: node, providingPeersOf: declaration, in: context)
    }
}

/// Expands a freestanding declaration as `Implementation` does.
protocol ForwardingDeclarationMacro: ForwardingMacro, DeclarationMacro where Implementation: DeclarationMacro {}

extension ForwardingDeclarationMacro {
    static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try Implementation.expansion(of: node, in: context)
    }
}
