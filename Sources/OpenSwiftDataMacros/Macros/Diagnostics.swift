import SwiftDiagnostics

/// The messages OpenSwiftData's macros report at compile time.
enum ModelDiagnostic: String, DiagnosticMessage {
    case notAClass
    case transientWithoutDefault
    case letConstant
    case letRelationship
    case multipleBindings
    case missingType
    case unstorableType
    case propertyObservers
    case tooManyProperties
    case notAnActor

    var message: String {
        switch self {
        case .notAClass:
            "@Model can only be applied to a class; structs, enums and actors cannot be persistent models"
        case .transientWithoutDefault:
            "@Transient properties are not stored, so they need a default value (for example '= nil' or '= 0')"
        case .letConstant:
            "A 'let' with an initial value cannot take its stored value when a model is read back; drop the initial value or declare it 'var'"
        case .letRelationship:
            "A relationship changes as related models change; declare it 'var' (or 'private(set) var')"
        case .multipleBindings:
            "@Model needs one property per declaration; split 'var a, b' into separate lines"
        case .missingType:
            "@Model needs an explicit type annotation for this property (for example 'var date: Date = .now')"
        case .unstorableType:
            "This property type cannot be stored: use a Codable value type, or mark the property @Transient"
        case .propertyObservers:
            "@Model properties cannot have willSet/didSet observers; use a computed property or @Transient"
        case .tooManyProperties:
            "@Model supports at most 64 stored properties per class"
        case .notAnActor:
            "@ModelActor can only be applied to an actor"
        }
    }

    var diagnosticID: MessageID { MessageID(domain: "OpenSwiftData", id: rawValue) }
    var severity: DiagnosticSeverity { .error }
}
