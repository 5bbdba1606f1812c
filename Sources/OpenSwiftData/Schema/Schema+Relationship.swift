extension Schema {
    /// A relationship between two entities.
    ///
    /// ``Model()`` describes every property whose type is a model (`Trip?`), an array of models
    /// (`[Activity]`) or an optional array of models (`[Tag]?`) as a relationship, with or without a
    /// ``Relationship(_:deleteRule:minimumModelCount:maximumModelCount:originalName:inverse:hashModifier:)``
    /// annotation.
    public final class Relationship: SchemaProperty, Hashable, @unchecked Sendable {
        // @unchecked Sendable: configured while the schema is built, immutable afterwards.

        /// The rules that determine what happens to related models when a model is deleted.
        public enum DeleteRule: String, Hashable, Codable, Sendable {
            /// Deletes related models along with the model.
            case cascade
            /// Prevents deleting the model while it has related models.
            case deny
            /// Leaves related models as they are.
            case noAction
            /// Removes the model from the related models' inverse relationship.
            case nullify
        }

        /// An option that customizes a relationship.
        public struct Option: Hashable, Sendable {
            let name: String
            /// Ensures each related model is unique in the relationship.
            public static let unique = Option(name: "unique")
        }

        /// The relationship's name.
        public internal(set) var name: String = ""
        /// The relationship's name in a previous version of the schema, or its name if it has none.
        public var originalName: String { declaredOriginalName ?? name }
        /// The type of the property: the related model, an optional of it, or an array of them.
        public internal(set) var valueType: any Any.Type = Any.self
        /// Whether the relationship can be `nil`.
        public internal(set) var isOptional = true
        /// Whether the relationship holds any number of models.
        public internal(set) var isToOneRelationship = true
        /// The key path of the relationship's property, from its model class.
        public internal(set) var keypath: AnyKeyPath?
        /// The name of the related entity.
        public internal(set) var destination: String = ""
        /// The key path of the inverse relationship on the related model, when declared.
        public let inverseKeyPath: AnyKeyPath?
        /// The name of the inverse relationship, declared or inferred, or `nil` for a one-way relationship.
        public internal(set) var inverseName: String?
        /// What happens to related models when a model is deleted.
        public let deleteRule: DeleteRule
        /// The options of the relationship.
        public let options: [Option]
        /// The smallest number of related models, or `nil` for no limit.
        public let minimumModelCount: Int?
        /// The largest number of related models, or `nil` (or 0) for no limit.
        public let maximumModelCount: Int?
        /// A string that changes the schema's hash for this relationship.
        public let hashModifier: String?
        /// Always `false`: a relationship is not an attribute.
        public var isAttribute: Bool { false }
        /// Always `true`.
        public var isRelationship: Bool { true }
        /// Always `false`: relationships are persisted.
        public var isTransient: Bool { false }
        /// Whether the relationship has the ``Option/unique`` option.
        public var isUnique: Bool { options.contains(.unique) }

        /// Where the store keeps the relationship.
        var storage: RelationshipLink.Storage = .foreignKey
        /// The model class of the related entity.
        var destinationType: (any PersistentModel.Type)?
        private let declaredOriginalName: String?

        /// Creates a relationship with the options of `@Relationship`.
        public init(
            _ options: Option..., deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = 0,
            maximumModelCount: Int? = 0, originalName: String? = nil, inverse: AnyKeyPath? = nil,
            hashModifier: String? = nil
        ) {
            self.options = options
            self.deleteRule = deleteRule
            self.minimumModelCount = minimumModelCount
            self.maximumModelCount = maximumModelCount
            self.declaredOriginalName = originalName
            self.inverseKeyPath = inverse
            self.hashModifier = hashModifier
        }

        init(
            copying other: Relationship?, name: String, keypath: AnyKeyPath, valueType: any Any.Type,
            destination: any PersistentModel.Type, isToOne: Bool, isOptional: Bool
        ) {
            self.keypath = keypath
            self.options = other?.options ?? []
            self.deleteRule = other?.deleteRule ?? .nullify
            self.minimumModelCount = other?.minimumModelCount ?? 0
            self.maximumModelCount = other?.maximumModelCount ?? 0
            self.declaredOriginalName = other?.declaredOriginalName
            self.inverseKeyPath = other?.inverseKeyPath
            self.hashModifier = other?.hashModifier
            self.name = name
            self.valueType = valueType
            self.destinationType = destination
            self.destination = destination._osdEntityName
            self.isToOneRelationship = isToOne
            self.isOptional = isOptional
        }

        /// Two relationships are equal when their names, destinations, cardinality, inverses and
        /// delete rules match.
        public static func == (lhs: Relationship, rhs: Relationship) -> Bool {
            lhs.name == rhs.name && lhs.destination == rhs.destination && lhs.deleteRule == rhs.deleteRule
                && lhs.isToOneRelationship == rhs.isToOneRelationship && lhs.inverseName == rhs.inverseName
        }

        /// Hashes the relationship's name.
        public func hash(into hasher: inout Hasher) { hasher.combine(name) }
    }
}
