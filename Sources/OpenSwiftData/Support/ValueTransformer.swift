import Foundation

#if !canImport(Darwin)
/// An abstract class that transforms a value into another, as Foundation's on Apple platforms.
///
/// Linux's Foundation has no `ValueTransformer`; OpenSwiftData supplies this one so that
/// `@Attribute(.transformable(by:))` works as it does on Apple platforms: the transformer's
/// ``transformedValue(_:)`` turns the property's value into `Data` to store, and
/// ``reverseTransformedValue(_:)`` turns the stored `Data` back into the value.
///
/// OpenSwiftData makes an instance of a transformer class with `init()`, unless one is registered
/// under the class's name (``setValueTransformer(_:forName:)``).
open class ValueTransformer {
    /// Creates a transformer.
    public required init() {}

    /// The class of the values the transformer produces.
    open class func transformedValueClass() -> AnyClass { ValueTransformer.self }

    /// Whether the transformer can reverse its transformation. The default is `true`.
    open class func allowsReverseTransformation() -> Bool { true }

    /// Transforms a value.
    open func transformedValue(_ value: Any?) -> Any? { value }

    /// Reverses the transformation of a value. The default applies ``transformedValue(_:)``
    /// again when the class allows reverse transformation, and returns `nil` otherwise.
    open func reverseTransformedValue(_ value: Any?) -> Any? {
        Self.allowsReverseTransformation() ? transformedValue(value) : nil
    }

    /// Registers a transformer under a name; `nil` removes the one registered.
    open class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        TransformerRegistry.transformers.withValue { $0[name.rawValue] = transformer.map(TransformerRegistry.Entry.init) }
    }

    /// The names of the registered transformers.
    open class func valueTransformerNames() -> [NSValueTransformerName] {
        TransformerRegistry.transformers.withValue { $0.keys.sorted().map(NSValueTransformerName.init(rawValue:)) }
    }
}

/// The name of a registered value transformer.
public struct NSValueTransformerName: RawRepresentable, Hashable, Sendable {
    /// The name.
    public var rawValue: String
    /// Creates a name.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// Creates a name.
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// The transformers registered by name.
enum TransformerRegistry {
    /// A registered transformer. Transformers are shared as Foundation shares them on Apple
    /// platforms; OpenSwiftData only calls their transformation methods.
    struct Entry: @unchecked Sendable {
        let transformer: ValueTransformer
    }

    static let transformers = LockedValue<[String: Entry]>([:])

    /// The transformer registered under `name`.
    static func transformer(named name: String) -> ValueTransformer? {
        transformers.withValue { $0[name]?.transformer }
    }
}
#endif
