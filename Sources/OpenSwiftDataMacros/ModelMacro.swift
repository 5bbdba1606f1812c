import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: turns a class into a persistent model.
///
/// It attaches `@_PersistedProperty(index)` to every stored property, adds the members SwiftData's
/// macro adds (`_$backingData`, `persistentBackingData`, `schemaMetadata`, `init(backingData:)`,
/// `_$observationRegistrar`) plus typed row coding for the store, and conforms the class to
/// `PersistentModel` and `Observable`.
public struct ModelMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: ModelDiagnostic.notAClass))
            return []
        }
        let typeName = classDecl.name.trimmedDescription
        let isFinal = classDecl.modifiers.contains { $0.name.tokenKind == .keyword(.final) }
        let properties = PropertyScanner.persistedProperties(of: declaration, in: context)
        if properties.count > 64 {
            context.diagnose(Diagnostic(node: node, message: ModelDiagnostic.tooManyProperties))
            return []
        }
        return [
            // Lazy, so that a model made from backing data does not allocate a second one first.
            "private lazy var _$backingData = OpenSwiftData._ModelBacking<\(raw: typeName)>()",
            """
            public var persistentBackingData: any OpenSwiftData.BackingData<\(raw: typeName)> {
                get { _$backingData }
                set { _$backingData = OpenSwiftData._ModelBacking<\(raw: typeName)>.adopting(newValue) }
            }
            """,
            "public var _osdState: OpenSwiftData._ModelState { _$backingData }",
            schemaMetadata(typeName: typeName, properties: properties),
            """
            public required init(backingData: any OpenSwiftData.BackingData<\(raw: typeName)>) {
            \(raw: properties.map { "    _\($0.name) = nil" }.joined(separator: "\n"))
                _$backingData = OpenSwiftData._ModelBacking<\(raw: typeName)>.adopting(backingData)
            }
            """,
            "public static var _osdEntityName: Swift.String { \(literal: typeName) }",
            defaults(typeName: typeName, properties: properties),
            encodeAll(properties),
            // Created on the first read: a model nobody reads has no observers to notify.
            "private var _$observationRegistrarStorage: Observation.ObservationRegistrar? = nil",
            """
            private var _$observationRegistrar: Observation.ObservationRegistrar {
                if let registrar = _$observationRegistrarStorage { return registrar }
                let registrar = Observation.ObservationRegistrar()
                _$observationRegistrarStorage = registrar
                return registrar
            }
            """,
            decodeAll(properties),
            relate(properties),
            setRelated(properties),
            visitRelated(properties),
            decodeOne(properties),
            encodeOne(properties),
            resetOne(properties),
        ] + (isFinal ? [factory(typeName: typeName)] : [])
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard declaration.is(ClassDeclSyntax.self),
              let variable = member.as(VariableDeclSyntax.self),
              PropertyScanner.isPersistedCandidate(variable),
              variable.bindingSpecifier.tokenKind == .keyword(.var),
              variable.bindings.count == 1,
              variable.bindings.first?.accessorBlock == nil,
              let name = variable.bindings.first?.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
        else { return [] }
        let properties = PropertyScanner.persistedProperties(of: declaration, in: nil)
        guard let index = properties.firstIndex(where: { $0.name == name }) else { return [] }
        return ["@OpenSwiftData._PersistedProperty(\(raw: index))"]
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ClassDeclSyntax.self) else { return [] }
        let wanted = protocols.map(\.trimmedDescription)
        var result: [ExtensionDeclSyntax] = []
        if wanted.isEmpty || wanted.contains(where: { $0.hasSuffix("PersistentModel") }) {
            result.append(try ExtensionDeclSyntax("extension \(type.trimmed): OpenSwiftData.PersistentModel {}"))
        }
        if wanted.isEmpty || wanted.contains(where: { $0.hasSuffix("Observable") }) {
            result.append(try ExtensionDeclSyntax("extension \(type.trimmed): Observation.Observable {}"))
        }
        return result
    }

    private static func schemaMetadata(typeName: String, properties: [PersistedProperty]) -> DeclSyntax {
        let entries = properties.map { property in
            let metadata: String
            if property.isRelationship {
                metadata = "OpenSwiftData.Schema.Relationship(\(property.relationshipArguments ?? ""))"
            } else if let arguments = property.attributeArguments {
                metadata = "OpenSwiftData.Schema.Attribute(\(arguments))"
            } else {
                metadata = "nil"
            }
            return "OpenSwiftData.Schema.PropertyMetadata._persisted(name: \"\(property.name)\", "
                + "keypath: \\\(typeName).\(property.name), metadata: \(metadata))"
        }
        return """
            public static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                [\(raw: entries.map { "\n        " + $0 }.joined(separator: ","))
                ]
            }
            """
    }

    private static func decodeAll(_ properties: [PersistedProperty]) -> DeclSyntax {
        let lines = properties.enumerated().map { index, property in
            "    _\(property.name) = try row._read((\(property.type)).self, column + \(index))"
        }
        return """
            public func _osdDecodeAll(from row: OpenSwiftData.SQLiteStatement, startingAt column: Swift.Int32) throws {
            \(raw: lines.joined(separator: "\n"))
            }
            """
    }

    /// Adds `other` to, or removes it from, one relationship's storage without inverse
    /// maintenance: the other half of keeping an inverse consistent. Returns the model a to-one
    /// relationship pointed at before, when `other` replaced it.
    private static func relate(_ properties: [PersistedProperty]) -> DeclSyntax {
        let cases = properties.enumerated().map { index, property in
            """
                case \(index):
                    if _\(property.name) == nil { _$backingData._fulfill(self, property: \(index)) }
                    guard var value = _\(property.name) else { return nil }
                    let (changed, displaced) = OpenSwiftData._osdRelate(&value, other, adding: adding)
                    if changed {
                        if let registrar = _$observationRegistrarStorage {
                            registrar.withMutation(of: self, keyPath: \\.\(property.name)) { _\(property.name) = value }
                        } else {
                            _\(property.name) = value
                        }
                        _$backingData._didChange(self, property: \(index))
                    }
                    return displaced
            """
        }
        return """
            public func _osdRelate(property index: Swift.Int, to other: any OpenSwiftData.PersistentModel, adding: Swift.Bool) -> (any OpenSwiftData.PersistentModel)? {
                switch index {
            \(raw: cases.joined(separator: "\n"))
                default: return nil
                }
            }
            """
    }

    /// Sets a relationship loaded from the store (the models are all of the destination class).
    private static func setRelated(_ properties: [PersistedProperty]) -> DeclSyntax {
        let cases = properties.enumerated().map { index, property in
            """
                case \(index):
                    if let value = OpenSwiftData._osdRelatedValue(models, as: (\(property.type)).self) {
                        if let registrar = _$observationRegistrarStorage {
                            registrar.withMutation(of: self, keyPath: \\.\(property.name)) { _\(property.name) = value }
                        } else {
                            _\(property.name) = value
                        }
                    }
            """
        }
        return """
            public func _osdSetRelated(property index: Swift.Int, to models: [Swift.AnyObject]) {
                switch index {
            \(raw: cases.joined(separator: "\n"))
                default: break
                }
            }
            """
    }

    /// Calls `body` with each model a relationship holds, loading it first if `loading`.
    private static func visitRelated(_ properties: [PersistedProperty]) -> DeclSyntax {
        let cases = properties.enumerated().map { index, property in
            """
                case \(index):
                    if loading, _\(property.name) == nil { _$backingData._fulfill(self, property: \(index)) }
                    if let value = _\(property.name) { try OpenSwiftData._osdVisit(value, body) }
            """
        }
        return """
            public func _osdVisitRelated(property index: Swift.Int, loading: Swift.Bool, _ body: (any OpenSwiftData.PersistentModel) throws -> Swift.Void) rethrows {
                switch index {
            \(raw: cases.joined(separator: "\n"))
                default: break
                }
            }
            """
    }

    private static func decodeOne(_ properties: [PersistedProperty]) -> DeclSyntax {
        let cases = properties.enumerated().map { index, property in
            "    case \(index): _\(property.name) = try row._read((\(property.type)).self, column)"
        }
        return """
            public func _osdDecode(property index: Swift.Int, from row: OpenSwiftData.SQLiteStatement, at column: Swift.Int32) throws {
                switch index {
            \(raw: cases.joined(separator: "\n"))
                default: break
                }
            }
            """
    }

    /// The declared initial values, for a migration that adds a property: an initializer that runs
    /// only the property initializers, and a writer of the value of one property.
    private static func defaults(typeName: String, properties: [PersistedProperty]) -> DeclSyntax {
        let unset = properties.filter { !$0.hasInitialValue }.map { "    _\($0.name) = nil" }
        let cases = properties.enumerated().filter { $0.element.hasInitialValue }.map { index, property in
            """
                case \(index):
                    guard let value = model._\(property.name) else { return false }
                    try writer._write(value, column)
                    return true
            """
        }
        return """
            private init(_osdDefaults: Swift.Void) {
            \(raw: unset.joined(separator: "\n"))
            }

            public static func _osdWriteDefault(property index: Swift.Int, to writer: OpenSwiftData.SQLiteStatement, at column: Swift.Int32) throws -> Swift.Bool {
            \(raw: cases.isEmpty ? "    return false" : """
                    let model = \(typeName)(_osdDefaults: ())
                    switch index {
                \(cases.joined(separator: "\n"))
                    default: return false
                    }
                """)
            }
            """
    }

    /// For a final class: creates an empty instance without a run-time generic type lookup.
    private static func factory(typeName: String) -> DeclSyntax {
        """
        public static func _osdMake() -> \(raw: typeName) {
            \(raw: typeName)(backingData: OpenSwiftData._ModelBacking<\(raw: typeName)>())
        }
        """
    }

    private static func encodeAll(_ properties: [PersistedProperty]) -> DeclSyntax {
        let lines = properties.enumerated().map { index, property in
            """
                guard let value\(index) = _\(property.name) else { throw OpenSwiftData._ModelState.unloaded(Self.self, "\(property.name)") }
                try writer._write(value\(index), column + \(index))
            """
        }
        return """
            public func _osdEncodeAll(to writer: OpenSwiftData.SQLiteStatement, startingAt column: Swift.Int32) throws {
            \(raw: lines.joined(separator: "\n"))
            }
            """
    }

    private static func encodeOne(_ properties: [PersistedProperty]) -> DeclSyntax {
        let cases = properties.enumerated().map { index, property in
            """
                case \(index):
                    guard let value = _\(property.name) else { throw OpenSwiftData._ModelState.unloaded(Self.self, "\(property.name)") }
                    try writer._write(value, column)
            """
        }
        return """
            public func _osdEncode(property index: Swift.Int, to writer: OpenSwiftData.SQLiteStatement, at column: Swift.Int32) throws {
                switch index {
            \(raw: cases.joined(separator: "\n"))
                default: break
                }
            }
            """
    }

    private static func resetOne(_ properties: [PersistedProperty]) -> DeclSyntax {
        // Observers learn that the value changed (a rollback, or a save in another context).
        let cases = properties.enumerated().map { index, property in
            """
                case \(index):
                    if let registrar = _$observationRegistrarStorage {
                        registrar.withMutation(of: self, keyPath: \\.\(property.name)) { _\(property.name) = nil }
                    } else {
                        _\(property.name) = nil
                    }
            """
        }
        return """
            public func _osdUnload(property index: Swift.Int) {
                switch index {
            \(raw: cases.joined(separator: "\n"))
                default: break
                }
            }
            """
    }
}
