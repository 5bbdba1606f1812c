import SwiftSyntax
import SwiftSyntaxMacros
import SwiftDiagnostics

/// A stored property of a model class that the store persists.
struct PersistedProperty {
    /// The property's name, without the backticks a keyword needs (`default` for `` `default` ``).
    var name: String
    /// The property's name as code refers to it: as written, in backticks when it is a keyword.
    var reference: String
    /// The property's declared (or inferred) type, as source text.
    var type: String
    /// The arguments of the property's `@Attribute(...)`, as source text.
    var attributeArguments: String?
    /// Whether the property is a relationship (`@Relationship`).
    var isRelationship: Bool
    /// The arguments of the property's `@Relationship(...)`, as source text.
    var relationshipArguments: String?
    /// Whether the declared type is an optional.
    var isOptional: Bool
    /// The initial value the declaration gives (`var rating = 3`), as source text.
    var initialValue: String?
    /// Whether the declaration gives an initial value.
    var hasInitialValue: Bool { initialValue != nil }
    /// Whether the property is a `let`: stored, set once by the initializer, never changed.
    var isConstant: Bool = false
    /// The argument of the attribute's `.transformable(by:)` option, as source text: a
    /// transformer class (`ColorTransformer.self`) or a registered transformer's name.
    var transformer: String? = nil

    /// The arguments generated row-coding calls add for the property: its value transformer. A
    /// transformer class (`ColourTransformer.self`) comes with a closure that makes one, so that
    /// its initializer need not be `required`.
    var codingArguments: String {
        guard let transformer else { return "" }
        if transformer.hasSuffix(".self") {
            let type = transformer.dropLast(".self".count)
            return ", transformedBy: OpenSwiftData._ValueTransformation(\(transformer), make: { \(type)() })"
        }
        return ", transformedBy: OpenSwiftData._ValueTransformation(\(transformer))"
    }

    /// Whether the attribute is `.ephemeral`: tracked, but a save stores the value a new model
    /// starts with rather than the model's.
    var isEphemeral: Bool {
        guard let attributeArguments else { return false }
        // The options, not a string argument that happens to spell the name (`originalName:`).
        let outsideStrings = attributeArguments.split(separator: "\"", omittingEmptySubsequences: false)
            .enumerated().filter { $0.offset.isMultiple(of: 2) }.map(\.element).joined(separator: " ")
        return outsideStrings.contains(".ephemeral")
    }

    /// Whether the property may be a relationship: a `var` that is not of a plain value type
    /// (a property without `@Relationship` whose type is a model is one too).
    var mayHoldModels: Bool { !isConstant && (isRelationship || !OpenSwiftDataMacros.isPlainValueType(type)) }

    /// Whether the storage holds the value itself, its loading tracked by a bit of
    /// `_osdUnloadedProperties` rather than by `nil` (see `hasUnwrappedStorage`).
    var hasUnwrappedStorage: Bool { !isConstant && !isRelationship && OpenSwiftDataMacros.hasUnwrappedStorage(type) }
}

/// Finds the persisted properties of a model class and reports the ones that cannot be persisted.
enum PropertyScanner {
    /// The persisted properties, in declaration order. Reports diagnostics for invalid ones.
    static func persistedProperties(
        of declaration: some DeclGroupSyntax,
        in context: (any MacroExpansionContext)?
    ) -> [PersistedProperty] {
        var result: [PersistedProperty] = []
        for member in declaration.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            if let property = persistedProperty(variable, in: context) { result.append(property) }
        }
        return result
    }

    /// Whether a member variable is stored by the model (as opposed to computed, static or transient).
    static func isPersistedCandidate(_ variable: VariableDeclSyntax) -> Bool {
        if variable.modifiers.contains(where: { ["static", "class", "lazy"].contains($0.name.text) }) { return false }
        if hasAttribute(variable, named: "Transient") { return false }
        guard variable.bindings.count == 1, let binding = variable.bindings.first else {
            return variable.bindingSpecifier.tokenKind == .keyword(.var)
        }
        if let accessors = binding.accessorBlock {
            switch accessors.accessors {
            case .getter: return false
            case .accessors(let list):
                let kinds = list.map(\.accessorSpecifier.tokenKind)
                if kinds.contains(.keyword(.get)) || kinds.contains(.keyword(.set)) { return false }
            }
        }
        return true
    }

    private static func persistedProperty(
        _ variable: VariableDeclSyntax,
        in context: (any MacroExpansionContext)?
    ) -> PersistedProperty? {
        if variable.modifiers.contains(where: { ["static", "class", "lazy"].contains($0.name.text) }) { return nil }
        if hasAttribute(variable, named: "Transient") {
            // A computed property is not stored either way; a stored one needs a value after a fetch.
            if variable.bindings.contains(where: { $0.initializer == nil && !isComputed($0) }) {
                context?.diagnose(Diagnostic(node: variable, message: ModelDiagnostic.transientWithoutDefault))
            }
            return nil
        }
        guard isPersistedCandidate(variable) else { return nil }
        let isConstant = variable.bindingSpecifier.tokenKind == .keyword(.let)
        if isConstant {
            if variable.bindings.contains(where: { $0.initializer != nil }) {
                context?.diagnose(Diagnostic(node: variable.bindingSpecifier, message: ModelDiagnostic.letConstant))
                return nil
            }
            if hasAttribute(variable, named: "Relationship") {
                context?.diagnose(Diagnostic(node: variable.bindingSpecifier, message: ModelDiagnostic.letRelationship))
                return nil
            }
        }
        guard variable.bindings.count == 1, let binding = variable.bindings.first,
              let identifier = binding.pattern.as(IdentifierPatternSyntax.self)
        else {
            context?.diagnose(Diagnostic(node: variable, message: ModelDiagnostic.multipleBindings))
            return nil
        }
        if binding.accessorBlock != nil {
            context?.diagnose(Diagnostic(node: variable, message: ModelDiagnostic.propertyObservers))
            return nil
        }
        let typeSyntax = binding.typeAnnotation?.type
        guard let type = typeSyntax.map(storedTypeText) ?? inferredType(of: binding.initializer?.value) else {
            context?.diagnose(Diagnostic(node: binding, message: ModelDiagnostic.missingType))
            return nil
        }
        if let typeSyntax, !isStorable(typeSyntax) {
            context?.diagnose(Diagnostic(node: typeSyntax, message: ModelDiagnostic.unstorableType))
            return nil
        }
        return PersistedProperty(
            name: bareName(identifier.identifier), reference: identifier.identifier.trimmedDescription,
            type: type,
            attributeArguments: attributeArguments(variable, named: "Attribute"),
            isRelationship: hasAttribute(variable, named: "Relationship"),
            relationshipArguments: attributeArguments(variable, named: "Relationship"),
            isOptional: typeSyntax.map(isOptionalType) ?? false,
            initialValue: binding.initializer?.value.trimmedDescription,
            isConstant: isConstant,
            transformer: transformerArgument(variable)
        )
    }

    /// Whether a binding has a getter: a computed property, which holds no value of its own.
    private static func isComputed(_ binding: PatternBindingSyntax) -> Bool {
        guard let accessors = binding.accessorBlock else { return false }
        switch accessors.accessors {
        case .getter: return true
        case .accessors(let list): return list.contains { $0.accessorSpecifier.tokenKind == .keyword(.get) }
        }
    }

    /// Whether the declaration carries `@Name` (with or without a module prefix).
    static func hasAttribute(_ variable: VariableDeclSyntax, named name: String) -> Bool {
        variable.attributes.contains { element in
            guard case .attribute(let attribute) = element else { return false }
            return attributeName(attribute) == name
        }
    }

    private static func attributeName(_ attribute: AttributeSyntax) -> String {
        let text = attribute.attributeName.trimmedDescription
        return text.split(separator: ".").last.map(String.init) ?? text
    }

    private static func attributeArguments(_ variable: VariableDeclSyntax, named name: String) -> String? {
        for element in variable.attributes {
            guard case .attribute(let attribute) = element, attributeName(attribute) == name else { continue }
            return attribute.arguments?.trimmedDescription ?? ""
        }
        return nil
    }

    /// The argument of a `.transformable(by:)` option of the declaration's `@Attribute`.
    private static func transformerArgument(_ variable: VariableDeclSyntax) -> String? {
        for element in variable.attributes {
            guard case .attribute(let attribute) = element, attributeName(attribute) == "Attribute",
                  case .argumentList(let arguments) = attribute.arguments else { continue }
            for argument in arguments {
                guard let call = argument.expression.as(FunctionCallExprSyntax.self),
                      let member = call.calledExpression.as(MemberAccessExprSyntax.self),
                      member.declName.baseName.text == "transformable",
                      let only = call.arguments.first, only.label?.text == "by"
                else { continue }
                return only.expression.trimmedDescription
            }
        }
        return nil
    }

    private static func isOptionalType(_ type: TypeSyntax) -> Bool {
        if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return true }
        if let identifier = type.as(IdentifierTypeSyntax.self) { return identifier.name.text == "Optional" }
        return false
    }

    /// Rejects types no store can hold: functions, tuples, existentials and opaque types.
    private static func isStorable(_ type: TypeSyntax) -> Bool {
        if type.is(FunctionTypeSyntax.self) || type.is(TupleTypeSyntax.self) && type.as(TupleTypeSyntax.self)!.elements.count != 1 {
            return false
        }
        if let attributed = type.as(AttributedTypeSyntax.self) { return isStorable(attributed.baseType) }
        if let some = type.as(SomeOrAnyTypeSyntax.self) { _ = some; return false }
        if let identifier = type.as(IdentifierTypeSyntax.self), ["Any", "AnyObject"].contains(identifier.name.text) {
            return false
        }
        if let optional = type.as(OptionalTypeSyntax.self) { return isStorable(optional.wrappedType) }
        if let tuple = type.as(TupleTypeSyntax.self), let only = tuple.elements.first { return isStorable(only.type) }
        if let array = type.as(ArrayTypeSyntax.self) { return isStorable(array.element) }
        if let dictionary = type.as(DictionaryTypeSyntax.self) {
            return isStorable(dictionary.key) && isStorable(dictionary.value)
        }
        return true
    }
}
