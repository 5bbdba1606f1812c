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
    public init() {}

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

extension NSValueTransformerName {
    /// The name of ``NSSecureUnarchiveFromDataTransformer``.
    public static let secureUnarchiveFromDataTransformerName = NSValueTransformerName("NSSecureUnarchiveFromData")
}

/// A transformer that unarchives `Data` into objects of the classes it allows, and archives them
/// with secure coding in reverse, as Foundation's on Apple platforms.
///
/// Subclass it and override ``allowedTopLevelClasses`` to store an `NSSecureCoding` class with
/// `@Attribute(.transformable(by:))`. As Core Data does, OpenSwiftData stores what
/// ``reverseTransformedValue(_:)`` makes (the archive) and reads back through
/// ``transformedValue(_:)``.
open class NSSecureUnarchiveFromDataTransformer: ValueTransformer {
    /// The classes the transformer unarchives: by default Foundation's property-list and value
    /// classes.
    open class var allowedTopLevelClasses: [AnyClass] {
        [NSArray.self, NSDictionary.self, NSSet.self, NSString.self, NSNumber.self, NSDate.self, NSData.self, NSURL.self, NSUUID.self, NSNull.self]
    }

    /// The transformer reverses its transformation.
    open override class func allowsReverseTransformation() -> Bool { true }

    /// The class of the values the transformer produces.
    open override class func transformedValueClass() -> AnyClass { NSObject.self }

    /// Unarchives `Data` into an object of an allowed class, or returns `nil` (and reports why
    /// through `OpenSwiftDataDiagnostics`, since the transformer's API has no error).
    open override func transformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        do {
            return try NSKeyedUnarchiver.unarchivedObject(ofClasses: Self.allowedTopLevelClasses, from: data)
        } catch {
            Diagnostics.report("\(Self.self) could not unarchive \(data.count) bytes: \(error)")
            return nil
        }
    }

    /// Archives an object with secure coding into `Data`, or returns `nil` (and reports why
    /// through `OpenSwiftDataDiagnostics`).
    open override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let value else { return nil }
        do {
            return try NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true)
        } catch {
            Diagnostics.report("\(Self.self) could not archive a \(Swift.type(of: value)): \(error)")
            return nil
        }
    }
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
