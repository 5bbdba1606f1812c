import SwiftSyntax

/// The type of a property declared without an annotation, inferred from its initial value:
/// literals (`0`, `1.5`, `""`, `true`), initializer calls (`Date()`, `UUID()`, `Foo.init(…)`) and
/// static members (`Date.now`). Returns `nil` when the type cannot be read off the syntax.
func inferredType(of expression: ExprSyntax?) -> String? {
    guard let expression else { return nil }
    if expression.is(IntegerLiteralExprSyntax.self) { return "Int" }
    if expression.is(FloatLiteralExprSyntax.self) { return "Double" }
    if expression.is(StringLiteralExprSyntax.self) { return "String" }
    if expression.is(BooleanLiteralExprSyntax.self) { return "Bool" }
    if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
        return inferredType(of: prefix.expression)
    }
    if let call = expression.as(FunctionCallExprSyntax.self) {
        if let name = typeName(call.calledExpression) { return name }
        if let member = call.calledExpression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "init",
           let base = member.base, let name = typeName(base) {
            return name
        }
        return nil
    }
    if let member = expression.as(MemberAccessExprSyntax.self), let base = member.base, let name = typeName(base),
       member.declName.baseName.text.first?.isLowercase == true {
        return name
    }
    return nil
}

/// The text of an expression that names a type (`Date`, `Foundation.Date`, `[String]`).
private func typeName(_ expression: ExprSyntax) -> String? {
    if let reference = expression.as(DeclReferenceExprSyntax.self),
       reference.baseName.text.first?.isUppercase == true {
        return reference.trimmedDescription
    }
    if let member = expression.as(MemberAccessExprSyntax.self), let base = member.base, typeName(base) != nil,
       member.declName.baseName.text.first?.isUppercase == true {
        return member.trimmedDescription
    }
    if let array = expression.as(ArrayExprSyntax.self), array.elements.count == 1,
       let element = array.elements.first, let name = typeName(element.expression) {
        return "[\(name)]"
    }
    if let generic = expression.as(GenericSpecializationExprSyntax.self), typeName(generic.expression) != nil {
        return generic.trimmedDescription
    }
    return nil
}

/// The text of a property's type as its storage and row coding spell it: an implicitly unwrapped
/// optional (`String!`) is the optional it stands for (`String?`), since `String!` cannot be nested
/// in another type.
func storedTypeText(_ type: TypeSyntax) -> String {
    if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
        return "\(unwrapped.wrappedType.trimmedDescription)?"
    }
    return type.trimmedDescription
}

/// The property types whose storage has no `Optional` around it: fixed-size values whose
/// `Optional` adds a tag byte, which alignment rounds up to a whole word (a `Date?` takes 16
/// bytes where a `Date` takes 8). Whether such a property is loaded is a bit of the model's
/// `_osdUnloadedProperties` instead, and its storage holds the type's placeholder until then.
private let unwrappedStorageTypes: Set<String> = {
    let names = ["Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64", "Double", "Float"]
    return Set(names + names.map { "Swift." + $0 } + ["Date", "Foundation.Date", "UUID", "Foundation.UUID"])
}()

/// Value types that are never a model, nor hold one: a property of one of them (or an optional
/// or array of one) is not a relationship, so the relationship methods `@Model` generates skip it
/// rather than asking at run time.
private let plainValueTypes: Set<String> = {
    let swift = ["String", "Bool", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64", "Double", "Float"]
    let foundation = ["Date", "UUID", "Data", "URL", "Decimal"]
    return Set(swift + swift.map { "Swift." + $0 } + foundation + foundation.map { "Foundation." + $0 })
}()

/// Whether a property of this stored type can never hold a model (see `plainValueTypes`).
func isPlainValueType(_ storedType: String) -> Bool {
    var type = Substring(storedType)
    if type.hasSuffix("?") { type = type.dropLast() }
    if type.hasPrefix("["), type.hasSuffix("]"), !type.contains(":") { type = type.dropFirst().dropLast() }
    if type.hasSuffix("?") { type = type.dropLast() }
    return plainValueTypes.contains(String(type))
}

/// Whether a property of this stored type keeps its value without an `Optional` (see
/// `unwrappedStorageTypes`).
func hasUnwrappedStorage(_ storedType: String) -> Bool {
    unwrappedStorageTypes.contains(storedType)
}

/// Standard types with a placeholder of their own besides those with unwrapped storage.
private let standardPlaceholderTypes: Set<String> = {
    let names = ["String", "Bool", "Data", "URL", "Decimal"]
    return Set(names + names.map { "Swift." + $0 } + names.map { "Foundation." + $0 })
}()

/// Whether a property type, as written, surely has a placeholder (``hasUnwrappedStorage(_:)``'s
/// scalars, `String`, `Bool`, `Data`, `URL`, `Decimal`, optionals, arrays and dictionaries), so
/// that its getter needs no other value to fall back on.
func hasStandardPlaceholder(_ storedType: String) -> Bool {
    hasUnwrappedStorage(storedType) || standardPlaceholderTypes.contains(storedType)
        || storedType.hasSuffix("?") || storedType.hasPrefix("[") || storedType.hasPrefix("Optional<") || storedType.hasPrefix("Swift.Optional<")
}

/// The bit of a property in `_osdUnloadedProperties`, for its index expression.
private func unloadedBit(_ index: String) -> String {
    "((1 as Swift.UInt64) << (\(index)))"
}

/// The condition that the unwrapped-storage property at `index` is not loaded.
func isUnloadedCondition(_ index: String) -> String {
    "_osdUnloadedProperties & \(unloadedBit(index)) != 0"
}

/// The condition that the unwrapped-storage property at `index` is loaded.
func isLoadedCondition(_ index: String) -> String {
    "_osdUnloadedProperties & \(unloadedBit(index)) == 0"
}

/// The statement that marks the unwrapped-storage property at `index` loaded.
func markLoadedStatement(_ index: String) -> String {
    "_osdUnloadedProperties &= ~\(unloadedBit(index))"
}

/// The statement that marks the unwrapped-storage property at `index` not loaded.
func markUnloadedStatement(_ index: String) -> String {
    "_osdUnloadedProperties |= \(unloadedBit(index))"
}

/// An identifier's name without the backticks that let a keyword be one (`` `default` `` is
/// `default`): the name to build other names from and to put in strings.
func bareName(_ token: TokenSyntax) -> String {
    let text = token.trimmedDescription
    guard text.count >= 2, text.hasPrefix("`"), text.hasSuffix("`") else { return text }
    return String(text.dropFirst().dropLast())
}
