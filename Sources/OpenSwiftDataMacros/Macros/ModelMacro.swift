import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: turns a class into a persistent model.
///
/// It attaches `@_PersistedProperty(index)` to every stored property, adds the members SwiftData's
/// macro adds (`persistentBackingData`, `schemaMetadata`, `init(backingData:)`,
/// `_$observationRegistrar`) plus the model's state fields (`_osdPrimaryKey`, `_osdFlags`, …) and
/// typed row coding for the store, and conforms the class to `PersistentModel` and `Observable`.
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
        let shape = ClassShape(classDecl, conformingTo: protocols)
        let typeName = shape.typeName
        let properties = PropertyScanner.persistedProperties(of: declaration, in: context)
        if properties.count > 64 {
            context.diagnose(Diagnostic(node: node, message: ModelDiagnostic.tooManyProperties))
            return []
        }
        var members: [GeneratedCode] = []
        let hasConstants = properties.contains(where: \.isConstant)
        if shape.isSubclass, hasConstants {
            members.append("public override class var _osdHasConstants: Swift.Bool { true }")
        }
        if let superclass = shape.superclass {
            // The state fields, the Observation registrar and the conformances are inherited.
            members += [
                """
                public required init(backingData: any OpenSwiftData.BackingData<_OSDRoot>) {
                \(raw: initialAssignments(shape, properties))
                    super.init(backingData: backingData)\(raw: markAllUnloaded(shape, properties))
                }
                """,
                "public override class var _osdSuperentity: (any OpenSwiftData.PersistentModel.Type)? { \(raw: superclass).self }",
                "public override class var _osdPropertyCount: Swift.Int { \(raw: superclass)._osdPropertyCount + \(raw: properties.count) }",
                "public override class var _osdInheritedKeyPaths: [Swift.AnyKeyPath] { \(raw: superclass)._osdKeyPaths\(raw: superclass)(rootedAt: \(raw: typeName).self) }",
            ]
        } else {
            let access = shape.storageAccess
            // The model's identity, context and change set, in the object itself. Only ever read
            // and assigned whole, so without the run-time exclusivity check.
            members.append("@exclusivity(unchecked) public var _osdPrimaryKey: Swift.Int64 = 0")
            members += packedStateFields(packsMasks: shape.isFinal && properties.count <= 32)
            members += [
                "@exclusivity(unchecked) public var _osdContextReference: OpenSwiftData._ContextReference? = nil",
                "@exclusivity(unchecked) public var _osdLocation: OpenSwiftData._ModelLocation? = nil",
                """
                public var persistentBackingData: any OpenSwiftData.BackingData<\(raw: typeName)> {
                    get { OpenSwiftData._ModelBacking<\(raw: typeName)>(of: self) }
                    set { _osdAdopt(newValue) }
                }
                """,
                """
                public required init(backingData: any OpenSwiftData.BackingData<\(raw: typeName)>) {
                \(raw: initialAssignments(shape, properties) + markAllUnloaded(shape, properties))
                    _osdAdopt(backingData)
                }
                """,
                // Created on the first read: a model nobody reads has no observers to notify.
                // A reference, not an `ObservationRegistrar?`, whose layout is resilient.
                "@exclusivity(unchecked) \(raw: access) var _$observationRegistrarStorage: OpenSwiftData._ModelObservation? = nil",
                """
                \(raw: access) var _$observationRegistrar: OpenSwiftData._ModelObservation {
                    if let registrar = _$observationRegistrarStorage { return registrar }
                    let registrar = OpenSwiftData._ModelObservation()
                    _$observationRegistrarStorage = registrar
                    return registrar
                }
                """,
            ]
            members.append("public \(raw: shape.typeMemberKeyword) var _osdPropertyCount: Swift.Int { \(raw: properties.count) }")
            if !shape.isFinal || hasConstants {
                members.append("public \(raw: shape.typeMemberKeyword) var _osdHasConstants: Swift.Bool { \(raw: hasConstants) }")
            }
            if !shape.isFinal {
                members += [
                    "public typealias _OSDRoot = \(raw: typeName)",
                    "public class var _osdSuperentity: (any OpenSwiftData.PersistentModel.Type)? { nil }",
                    "public class var _osdInheritedKeyPaths: [Swift.AnyKeyPath] { [] }",
                ]
            }
        }
        if !shape.isFinal {
            // Key paths to this class's properties rooted at a subclass (`\Photo.title` is not
            // `\MediaItem.title` to Swift), so that predicates and sorts on a subclass find them.
            let own = properties.map { "\\S.\($0.reference)" }.joined(separator: ", ")
            let inherited = shape.superclass.map { "\($0)._osdKeyPaths\($0)(rootedAt: type) + " } ?? ""
            members.append("""
                public class func _osdKeyPaths\(raw: typeName)<S: \(raw: typeName)>(rootedAt type: S.Type) -> [Swift.AnyKeyPath] {
                    \(raw: inherited)[\(raw: own)]
                }
                """)
        }
        members += [
            schemaMetadata(shape, properties: properties),
            "public \(raw: shape.typeMemberKeyword) var _osdEntityName: Swift.String { \(literal: typeName) }",
            defaults(shape, properties: properties),
            encodeAll(shape, properties),
            decodeAll(shape, properties),
            relate(shape, properties),
            setRelated(shape, properties),
            visitRelated(shape, properties),
            decodeOne(shape, properties),
            encodeOne(shape, properties),
            resetOne(shape, properties),
            releaseOne(shape, properties),
        ]
        if shape.isFinal && !shape.isSubclass {
            members += factory(typeName: typeName, assignments: initialAssignments(shape, properties) + markAllUnloaded(shape, properties))
        }
        return members.map(\.declaration)
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
              let name = variable.bindings.first?.pattern.as(IdentifierPatternSyntax.self).map({ bareName($0.identifier) })
        else { return [] }
        let properties = PropertyScanner.persistedProperties(of: declaration, in: nil)
        guard let index = properties.firstIndex(where: { $0.name == name }),
              let classDecl = declaration.as(ClassDeclSyntax.self)
        else { return [] }
        let indexExpression = ClassShape.propertyIndex(index, of: properties.count, in: classDecl)
        return ["@OpenSwiftData._PersistedProperty(\(raw: indexExpression))"]
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ClassDeclSyntax.self) else { return [] }
        // The compiler lists only the conformances the class lacks: none for a subclass of a model,
        // which inherits them, and not `PersistentModel` when a protocol the class adopts refines it.
        let wanted = protocols.map(\.trimmedDescription)
        // A class declared `nonisolated` (in a module whose default isolation is the main actor)
        // gets nonisolated conformances: an extension there would otherwise be on the main actor,
        // and its conformances with it, unusable in a `@ModelActor`. (Only a compiler that parses
        // `nonisolated` on a class sees this, and it parses it on an extension too.)
        let isolation = declaration.modifiers.contains { $0.name.tokenKind == .keyword(.nonisolated) } ? "nonisolated " : ""
        var result: [ExtensionDeclSyntax] = []
        for (suffix, conformance) in [
            ("PersistentModel", "OpenSwiftData.PersistentModel"),
            ("Observable", "Observation.Observable"),
            (ClassShape.rootMarker, "OpenSwiftData.\(ClassShape.rootMarker)"),
        ] where wanted.contains(where: { $0.hasSuffix(suffix) }) {
            result.append(try ExtensionDeclSyntax("\(raw: isolation)extension \(type.trimmed): \(raw: conformance) {}"))
        }
        return result
    }
}
