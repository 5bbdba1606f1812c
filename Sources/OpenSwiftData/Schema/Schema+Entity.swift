extension Schema {
    /// The schema of one model class: its name, attributes, constraints and indexes.
    public final class Entity: Hashable, CustomStringConvertible, @unchecked Sendable {
        // @unchecked Sendable: immutable once its schema is used by a container (see Schema).

        /// The entity's name, the name of its model class.
        public let name: String
        /// The persisted attributes, in declaration order.
        public let attributes: [Attribute]
        /// The relationships to other entities.
        public let relationships: [Relationship]
        /// The names of the properties in each uniqueness constraint (`#Unique` and `.unique`).
        public let uniquenessConstraints: [[String]]
        /// The names of the properties in each index (`#Index`).
        public let indices: [[String]]
        /// The entity this one inherits from, if any.
        public let superentity: Entity? = nil
        /// The entities that inherit from this one.
        public let subentities: Set<Entity> = []

        /// The model class the entity describes.
        let modelType: any PersistentModel.Type
        /// The index of each attribute by its key path, for translating predicates and sorts.
        let attributeIndexByKeyPath: [AnyKeyPath: Int]

        init(modelType: any PersistentModel.Type) {
            func name<M: PersistentModel>(_ type: M.Type) -> String { Schema.entityName(for: type) }
            self.name = name(modelType)
            self.modelType = modelType
            let metadata = modelType.schemaMetadata
            self.attributes = metadata.compactMap { $0.metadata as? Attribute }
            self.relationships = metadata.compactMap { $0.metadata as? Relationship }
            var indexByKeyPath: [AnyKeyPath: Int] = [:]
            var nameByKeyPath: [AnyKeyPath: String] = [:]
            for (index, property) in metadata.enumerated() {
                indexByKeyPath[property.keypath] = index
                nameByKeyPath[property.keypath] = property.name
            }
            self.attributeIndexByKeyPath = indexByKeyPath
            let declaredUnique = modelType._osdUniquenessConstraints.map { $0.compactMap { nameByKeyPath[$0] } }
            let attributeUnique = attributes.filter(\.isUnique).map { [$0.name] }
            self.uniquenessConstraints = (attributeUnique + declaredUnique).filter { !$0.isEmpty }
            self.indices = modelType._osdIndexes.map { $0.compactMap { nameByKeyPath[$0] } }.filter { !$0.isEmpty }
        }

        /// The attributes keyed by name.
        public var attributesByName: [String: Attribute] {
            Dictionary(attributes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        }

        /// The stored properties: the attributes and relationships.
        public var storedProperties: [any SchemaProperty] { attributes + relationships }

        /// A description listing the entity's attributes.
        public var description: String {
            "\(name)(\(attributes.map { "\($0.name): \($0.valueType)" }.joined(separator: ", ")))"
        }

        /// Two entities are equal when they have the same name and the same attributes.
        public static func == (lhs: Entity, rhs: Entity) -> Bool {
            lhs.name == rhs.name && lhs.attributes == rhs.attributes
                && lhs.uniquenessConstraints == rhs.uniquenessConstraints && lhs.indices == rhs.indices
        }

        /// Hashes the entity's name.
        public func hash(into hasher: inout Hasher) { hasher.combine(name) }
    }
}
