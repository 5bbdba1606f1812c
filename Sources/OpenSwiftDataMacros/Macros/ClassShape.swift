import SwiftSyntax

/// Where a `@Model` class sits in a class hierarchy, which decides the form of what the macro
/// generates: a final class gets static members and private storage; a non-final class gets
/// overridable members and storage its subclasses can reach; a subclass of another model overrides
/// them, handling its own properties and passing the others to its superclass.
///
/// A macro sees syntax, not declarations, so `@Model final class Note: TastingNote` does not say
/// whether `TastingNote` is a protocol or a model superclass. The type checker does: `@Model`
/// declares the conformance ``rootMarker``, which only a root model class adds, and the compiler
/// passes it to the macro only when the class does not conform yet, that is, when no superclass
/// is a model.
struct ClassShape {
    /// The protocol that the root class of every model hierarchy conforms to, and subclasses inherit.
    static let rootMarker = "_PersistentModelRoot"

    let typeName: String
    let isFinal: Bool
    /// The superclass, when the class inherits from another model class.
    let superclass: String?

    /// The shape as the type checker decides it, from the conformances the class still lacks.
    init(_ declaration: ClassDeclSyntax, conformingTo protocols: [TypeSyntax]) {
        typeName = declaration.name.trimmedDescription
        isFinal = declaration.modifiers.contains { $0.name.tokenKind == .keyword(.final) }
        let lacksRoot = protocols.contains { Self.lastComponent($0.trimmedDescription) == Self.rootMarker }
        superclass = lacksRoot ? nil : Self.firstInheritedType(of: declaration)
    }

    var isSubclass: Bool { superclass != nil }

    /// Whether the first inherited type could be a superclass, judged from syntax alone: it is
    /// there and is not one of the protocols model classes commonly list. Code generated where only
    /// syntax is known (property attributes) must then compile whichever it turns out to be.
    static func mayBeSubclass(_ declaration: ClassDeclSyntax) -> Bool {
        guard let first = firstInheritedType(of: declaration) else { return false }
        return !knownProtocols.contains(lastComponent(first))
    }

    /// The index expression of a class's `local`-th own property among `count` own properties:
    /// a literal for a root class, and otherwise an expression that the type checker resolves
    /// whichever the first inherited type turns out to be (the class's `_osdPropertyCount` counts
    /// inherited properties too).
    static func propertyIndex(_ local: Int, of count: Int, in declaration: ClassDeclSyntax) -> String {
        guard mayBeSubclass(declaration) else { return "\(local)" }
        return "\(declaration.name.trimmedDescription)._osdPropertyCount - \(count) + \(local)"
    }

    /// `static` for a final class, `class` for one subclasses can override, `override class` in a subclass.
    var typeMemberKeyword: String {
        if isSubclass { return "override class" }
        return isFinal ? "static" : "class"
    }

    /// `private` storage for a final class; internal for a hierarchy, so that subclasses' accessors reach it.
    var storageAccess: String { isFinal && !isSubclass ? "private" : "" }

    /// The expression of the first property index of this class: 0, or after the superclass's.
    var propertyOffset: String { superclass.map { "\($0)._osdPropertyCount" } ?? "0" }

    /// The index expression of the class's `local`-th own property, in code that knows the shape.
    func index(_ local: Int) -> String {
        superclass.map { "\($0)._osdPropertyCount + \(local)" } ?? "\(local)"
    }

    /// Protocols a model class commonly lists first; they are never a superclass.
    private static let knownProtocols: Set<String> = [
        "Codable", "Decodable", "Encodable", "Identifiable", "Hashable", "Equatable", "Comparable",
        "Sendable", "CustomStringConvertible", "CustomDebugStringConvertible", "Observable",
        "PersistentModel", "AnyObject", "Error", "CaseIterable", "Transferable",
    ]

    private static func firstInheritedType(of declaration: ClassDeclSyntax) -> String? {
        guard let first = declaration.inheritanceClause?.inheritedTypes.first?.type.trimmedDescription,
              !first.hasPrefix("@"), !first.hasPrefix("any ")
        else { return nil }
        return first
    }

    private static func lastComponent(_ name: String) -> String {
        name.split(separator: ".").last.map(String.init) ?? name
    }
}
