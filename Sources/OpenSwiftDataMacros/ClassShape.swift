import SwiftSyntax

/// Where a `@Model` class sits in a class hierarchy, which decides the form of what the macro
/// generates: a final class gets static members and private storage; a non-final class gets
/// overridable members and storage its subclasses can reach; a subclass of another model overrides
/// them, handling its own properties and passing the others to its superclass.
struct ClassShape {
    let typeName: String
    let isFinal: Bool
    /// The superclass, when the class inherits from another model class.
    let superclass: String?

    /// Protocols a model class commonly lists; any other first inherited type is its superclass.
    private static let knownProtocols: Set<String> = [
        "Codable", "Decodable", "Encodable", "Identifiable", "Hashable", "Equatable", "Comparable",
        "Sendable", "CustomStringConvertible", "CustomDebugStringConvertible", "Observable",
        "PersistentModel", "AnyObject", "Error", "CaseIterable", "Transferable",
    ]

    init(_ declaration: ClassDeclSyntax) {
        typeName = declaration.name.trimmedDescription
        isFinal = declaration.modifiers.contains { $0.name.tokenKind == .keyword(.final) }
        let first = declaration.inheritanceClause?.inheritedTypes.first?.type.trimmedDescription
        let name = first.map { $0.split(separator: ".").last.map(String.init) ?? $0 }
        if let first, let name, !Self.knownProtocols.contains(name), !first.hasPrefix("@"), !first.hasPrefix("any ") {
            superclass = first
        } else {
            superclass = nil
        }
    }

    var isSubclass: Bool { superclass != nil }

    /// `static` for a final class, `class` for one subclasses can override, `override class` in a subclass.
    var typeMemberKeyword: String {
        if isSubclass { return "override class" }
        return isFinal ? "static" : "class"
    }

    /// `private` storage for a final class; internal for a hierarchy, so that subclasses' accessors reach it.
    var storageAccess: String { isFinal && !isSubclass ? "private" : "" }

    /// The expression of the first property index of this class: 0, or after the superclass's.
    var propertyOffset: String { superclass.map { "\($0)._osdPropertyCount" } ?? "0" }

    /// The index expression of the class's `local`-th own property.
    func index(_ local: Int) -> String {
        superclass.map { "\($0)._osdPropertyCount + \(local)" } ?? "\(local)"
    }
}
