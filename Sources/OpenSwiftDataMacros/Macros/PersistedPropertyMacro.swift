import SwiftSyntax
import SwiftSyntaxMacros

/// `@_PersistedProperty(index)`: the accessors and typed storage of one persisted property.
///
/// The property becomes computed over private optional storage (`nil` means "not loaded yet"), or,
/// for a fixed-size scalar, over storage of its own type and a bit of `_osdUnloadedProperties`
/// (see `hasUnwrappedStorage`). The init accessor lets the user's own `init` assign it without
/// observation or change tracking; the getter reports the read to Observation and loads the value
/// on first access when the row was fetched without it; the setter reports the mutation and marks
/// the property changed.
public struct PersistedPropertyMacro: AccessorMacro, PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let (name, reference, type) = nameAndType(declaration), let index = index(node) else { return [] }
        let unwrapped = hasUnwrappedStorage(type)
        // Unwrapped storage always holds a value; a bit says whether it is the loaded one.
        let isUnloaded = unwrapped ? isUnloadedCondition(index) : "_\(name) == nil"
        let loaded = unwrapped ? "_\(name)" : "_\(name) ?? " + placeholder(index, type: type, declaration: declaration)
        let markLoaded = unwrapped ? "\n    " + markLoadedStatement(index) : ""
        let accessors: [GeneratedCode] = [
            """
            @storageRestrictions(initializes: _\(raw: name))
            init(initialValue) {
                _\(raw: name) = initialValue
            }
            """,
            """
            get {
                _$observationRegistrar.access(self, keyPath: \\.\(raw: reference))
                if \(raw: isUnloaded) { _osdFulfill(property: \(raw: index)) }
                return \(raw: loaded)
            }
            """,
            """
            set {
                let value = OpenSwiftData._osdWillSet(self, \(raw: index), self._\(raw: name), newValue)
                if let registrar = _$observationRegistrarStorage {
                    registrar.withMutation(of: self, keyPath: \\.\(raw: reference)) {
                        _\(raw: name) = value
                    }
                } else {
                    _\(raw: name) = value
                }\(raw: markLoaded)
                _osdDidChange(property: \(raw: index))
            }
            """,
        ]
        return accessors.map(\.accessor)
    }

    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let (name, _, type) = nameAndType(declaration) else { return [] }
        // No initial value (and `Optional` spelled out, which has no implicit `nil`), so that the
        // user's `init` assigns through the init accessor, without observation or change tracking;
        // `init(backingData:)` stores "not loaded" (`nil`, or the scalar's placeholder and its bit).
        // Generated code only reads and assigns the storage whole (never `inout` across a call),
        // so it skips the run-time exclusivity check.
        let storage = hasUnwrappedStorage(type) ? type : "Swift.Optional<\(type)>"
        let peer: GeneratedCode = "@exclusivity(unchecked) private var _\(raw: name): \(raw: storage)"
        return [peer.declaration]
    }

    /// The value the getter reads when the stored value cannot be loaded: the type's placeholder,
    /// with the property's declared initial value to fall back on when the type may have none
    /// (a type the standard placeholders do not cover, declared `var shape: Shape = .circle(1)`).
    /// A valid initial value names no instance member (Swift refuses one before `self` exists), so
    /// it means the same inside the getter.
    private static func placeholder(_ index: String, type: String, declaration: some DeclSyntaxProtocol) -> String {
        guard !hasStandardPlaceholder(type),
              let initialValue = declaration.as(VariableDeclSyntax.self)?.bindings.first?.initializer?.value
        else { return "OpenSwiftData._osdPlaceholder(self, property: \(index))" }
        return "OpenSwiftData._osdPlaceholder(self, property: \(index), declared: \(initialValue.trimmedDescription))"
    }

    /// The property's index: a literal, or `Superclass._osdPropertyCount + n` in a subclass.
    private static func index(_ node: AttributeSyntax) -> String? {
        guard case .argumentList(let arguments) = node.arguments, let first = arguments.first else { return nil }
        return first.expression.trimmedDescription
    }

    /// The property's name without backticks (to build the storage's name from), its name as
    /// code refers to it (in backticks when it is a keyword) and its stored type.
    private static func nameAndType(_ declaration: some DeclSyntaxProtocol) -> (name: String, reference: String, type: String)? {
        guard let variable = declaration.as(VariableDeclSyntax.self),
              let binding = variable.bindings.first,
              let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier
        else { return nil }
        let name = bareName(identifier)
        let reference = identifier.trimmedDescription
        if let type = binding.typeAnnotation?.type { return (name, reference, storedTypeText(type)) }
        return inferredType(of: binding.initializer?.value).map { (name, reference, $0) }
    }
}
