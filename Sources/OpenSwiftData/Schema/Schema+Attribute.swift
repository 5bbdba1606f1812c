/// A property of a schema: an attribute or a relationship.
public protocol SchemaProperty: AnyObject, Sendable {
    /// The property's name.
    var name: String { get }
    /// The property's name in a previous version of the schema.
    var originalName: String { get }
    /// The Swift type of the property's values.
    var valueType: any Any.Type { get }
    /// Whether the property can be `nil`.
    var isOptional: Bool { get }
    /// Whether the property is an attribute.
    var isAttribute: Bool { get }
    /// Whether the property is a relationship.
    var isRelationship: Bool { get }
    /// Whether the property is not persisted.
    var isTransient: Bool { get }
    /// Whether the property's value is unique among the entity's models.
    var isUnique: Bool { get }
}

extension Schema {
    /// A persisted attribute of an entity, and the options that customize how it is stored.
    public final class Attribute: SchemaProperty, Hashable, @unchecked Sendable {
        // @unchecked Sendable: configured while the schema is built, immutable afterwards.

        /// The attribute's name.
        public internal(set) var name: String
        /// The attribute's name in a previous version of the schema, or its name if it has none.
        public var originalName: String { declaredOriginalName ?? name }
        /// The options that customize how the attribute is stored.
        public let options: [Option]
        /// A string that changes the schema's hash for this attribute.
        public let hashModifier: String?
        /// The Swift type of the attribute's values.
        public internal(set) var valueType: any Any.Type = Any.self
        /// Whether the attribute can be `nil`.
        public internal(set) var isOptional = false
        /// The attribute's default value, if it has one.
        public let defaultValue: Any? = nil

        /// How the store lays the attribute out.
        var storage: StorageClass = .json
        private let declaredOriginalName: String?

        /// Creates an attribute with the given options.
        public init(_ options: Option..., originalName: String? = nil, hashModifier: String? = nil) {
            self.name = ""
            self.options = options
            self.declaredOriginalName = originalName
            self.hashModifier = hashModifier
        }

        init(copying other: Attribute?, name: String, valueType: any Any.Type, storage: StorageClass, isOptional: Bool) {
            self.name = name
            self.options = other?.options ?? []
            self.declaredOriginalName = other?.declaredOriginalName
            self.hashModifier = other?.hashModifier
            self.valueType = valueType
            self.storage = storage
            self.isOptional = isOptional
        }

        /// Always `true`.
        public var isAttribute: Bool { true }
        /// Always `false`: an attribute is not a relationship.
        public var isRelationship: Bool { false }
        /// Always `false`: transient properties are not part of the schema.
        public var isTransient: Bool { false }
        /// Whether the attribute has the ``Option/unique`` option.
        public var isUnique: Bool { options.contains(.unique) }
        /// Whether the attribute's values pass through a value transformer
        /// (`.transformable(by:)`).
        public var isTransformable: Bool { options.contains { $0.transformerName != nil } }
        /// The transformer of a `.transformable(by:)` attribute, as the option names it: a
        /// transformer class, or the name a transformer is registered under.
        package var transformer: (name: String, isClass: Bool)? {
            options.lazy.compactMap { option in option.transformerName.map { ($0, option.namesTransformerClass) } }.first
        }
        /// Whether the attribute is stored outside the row and loaded on first access.
        public var isExternal: Bool { options.contains(.externalStorage) }

        /// Two attributes are equal when their names, stored types and options match.
        public static func == (lhs: Attribute, rhs: Attribute) -> Bool {
            lhs.name == rhs.name && lhs.storage == rhs.storage && lhs.isOptional == rhs.isOptional
                && lhs.options == rhs.options && lhs.valueType == rhs.valueType
        }

        /// Hashes the attribute's name.
        public func hash(into hasher: inout Hasher) { hasher.combine(name) }
    }
}

extension Schema.Attribute {
    /// An option that customizes how an attribute is stored.
    public struct Option: Hashable, Sendable {
        let name: String
        /// The value transformer of `.transformable(by:)`: a class's name, or the name a
        /// transformer is registered under.
        let transformerName: String?
        /// Whether ``transformerName`` names a transformer class (`.transformable(by: T.self)`).
        let namesTransformerClass: Bool

        private init(_ name: String, transformerName: String? = nil, namesTransformerClass: Bool = false) {
            self.name = name
            self.transformerName = transformerName
            self.namesTransformerClass = namesTransformerClass
        }

        /// Ensures the property's value is unique across all models of the same type.
        public static let unique = Option("unique")
        /// Stores the property's value apart from the row and loads it on first access.
        public static let externalStorage = Option("externalStorage")
        /// Stores the property's value in an encrypted form (CloudKit only; accepted and ignored).
        public static let allowsCloudEncryption = Option("allowsCloudEncryption")
        /// Preserves the property's value in the persistent history when the model is deleted.
        public static let preserveValueOnDeletion = Option("preserveValueOnDeletion")
        /// Tracks changes to the property but does not persist its value.
        public static let ephemeral = Option("ephemeral")
        /// Indexes the property's value for Spotlight (Apple platforms only; accepted and ignored).
        public static let spotlight = Option("spotlight")
        /// Stores the property through its `Codable` representation, as one opaque value.
        ///
        /// OpenSwiftData stores every value that is not a scalar through its `Codable`
        /// representation already, so the option changes nothing on disk; predicates and sorts
        /// that use the property still work (SwiftData refuses them).
        public static let codable = Option("codable")

        /// Transforms the property's value with a value transformer class.
        public static func transformable(by transformerType: ValueTransformer.Type) -> Option {
            Option("transformable", transformerName: String(describing: transformerType), namesTransformerClass: true)
        }

        /// Transforms the property's value with the value transformer registered under a name.
        public static func transformable(by transformerName: String) -> Option {
            Option("transformable", transformerName: transformerName)
        }
    }
}
