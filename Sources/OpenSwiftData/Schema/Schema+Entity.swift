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
        public internal(set) weak var superentity: Entity?
        /// The entities that inherit from this one directly.
        public internal(set) var subentities: Set<Entity> = []
        /// The entities that inherit from this one, directly or not, in schema order.
        package var descendants: [Entity] = []
        /// This entity and its descendants: the tables a fetch of this model reads.
        var concreteEntities: [Entity] { [self] + descendants }
        /// The relationship at a property index, or `nil` for an attribute.
        func link(at index: Int) -> RelationshipLink? {
            linkAtProperty.indices.contains(index) ? linkAtProperty[index] : nil
        }
        /// The topmost entity of this one's hierarchy (itself when it has no superentity).
        package var root: Entity { superentity?.root ?? self }
        /// Whether the entity is part of a class hierarchy (has a superentity or subentities).
        package var isInHierarchy: Bool { superentity != nil || !subentities.isEmpty }

        /// The model class the entity describes.
        package let modelType: any PersistentModel.Type
        /// Every persisted property as the store sees it, by declaration index.
        package let fields: [Field]
        /// The relationships, resolved, by property index.
        package let links: [Int: RelationshipLink]
        /// The relationship at each property index, or `nil` for an attribute: ``links`` without hashing.
        private let linkAtProperty: [RelationshipLink?]
        /// The relationships with a `minimumModelCount` above 0 or a `maximumModelCount`, by property index.
        let relationshipCountLimits: [Int: (minimum: Int, maximum: Int)]
        /// The index of each persisted property by its key path, for predicates and sorts.
        let propertyIndexByKeyPath: [AnyKeyPath: Int]
        /// What is wrong with the model's `#Unique` and `#Index` declarations, one sentence each:
        /// a key path that is no stored property, or a to-many relationship (a to-one is a
        /// column, and may be named). The built-in stores refuse to open with any.
        package let declarationProblems: [String]

        init(modelType: any PersistentModel.Type) {
            func name<M: PersistentModel>(_ type: M.Type) -> String { Schema.entityName(for: type) }
            self.name = name(modelType)
            self.modelType = modelType
            let description = ModelGraph.description(of: modelType)
            let metadata = description.metadata
            self.links = description.links
            self.linkAtProperty = metadata.indices.map { description.links[$0] }
            self.attributes = metadata.compactMap { $0.metadata as? Attribute }
            self.relationships = metadata.compactMap { $0.metadata as? Relationship }
            self.fields = metadata.map { Field($0.metadata) }
            var limits: [Int: (minimum: Int, maximum: Int)] = [:]
            for (index, property) in metadata.enumerated() {
                guard let relationship = property.metadata as? Relationship else { continue }
                let minimum = max(relationship.minimumModelCount ?? 0, 0)
                let maximum = max(relationship.maximumModelCount ?? 0, 0)
                if minimum > 0 || maximum > 0 { limits[index] = (minimum, maximum) }
            }
            self.relationshipCountLimits = limits
            var indexByKeyPath: [AnyKeyPath: Int] = [:]
            var nameByKeyPath: [AnyKeyPath: String] = [:]
            for (index, property) in metadata.enumerated() {
                indexByKeyPath[property.keypath] = index
                nameByKeyPath[property.keypath] = property.name
            }
            // A subclass's inherited properties, by key paths rooted at the subclass too.
            for (index, keyPath) in modelType._osdInheritedKeyPaths.enumerated() where index < metadata.count {
                indexByKeyPath[keyPath] = index
            }
            self.propertyIndexByKeyPath = indexByKeyPath
            let declaredUnique = modelType._osdUniquenessConstraints.map { $0.compactMap { nameByKeyPath[$0] } }
            let attributeUnique = attributes.filter(\.isUnique).map { [$0.name] }
            self.uniquenessConstraints = (attributeUnique + declaredUnique).filter { !$0.isEmpty }
            self.indices = modelType._osdIndexes.map { $0.compactMap { nameByKeyPath[$0] } }.filter { !$0.isEmpty }
            self.declarationProblems = Self.declarationProblems(
                of: name(modelType), unique: modelType._osdUniquenessConstraints, indexes: modelType._osdIndexes,
                names: nameByKeyPath, relationships: Dictionary(relationships.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first }))
        }

        /// The problems of `#Unique` and `#Index` declarations (``declarationProblems``).
        private static func declarationProblems(
            of model: String, unique: [[AnyKeyPath]], indexes: [[AnyKeyPath]], names: [AnyKeyPath: String], relationships: [String: Relationship]
        ) -> [String] {
            var problems: [String] = []
            for (macro, groups) in [("#Unique", unique), ("#Index", indexes)] {
                for group in groups {
                    for keyPath in group {
                        guard let name = names[keyPath] else {
                            problems.append("\(macro)<\(model)> names \(keyPath), which is not a stored property of \(model) (a computed or @Transient property has no value in the store)")
                            continue
                        }
                        if let relationship = relationships[name], !relationship.isToOneRelationship {
                            problems.append("\(macro)<\(model)> names \(model).\(name), a to-many relationship, which has no column in \(model)'s table (a to-one relationship, an attribute, or the other side's to-one can be named instead)")
                        }
                    }
                }
            }
            return problems
        }

        /// The index of the property a key path reads, including a key path rooted at a subclass
        /// (`\Photo.title` as well as the inherited `\MediaItem.title`); `nil` when it is not one property.
        func propertyIndex(for keyPath: AnyKeyPath) -> Int? {
            propertyIndexByKeyPath[keyPath]
        }

        /// The index of a property by the identity of its accessor (see ``KeyPathComponents``), for
        /// key paths through a relationship (`\.trip?.name`).
        func propertyIndex(forAccessor accessor: String) -> Int? {
            indexByAccessor.withValue { cached in
                let index = cached ?? Self.accessorTable(from: propertyIndexByKeyPath)
                cached = index
                return index[accessor]
            }
        }

        /// ``propertyIndex(forAccessor:)``'s table, made on first use: it describes every key path,
        /// which costs about 100,000 instructions each, and only predicates and sorts through a
        /// relationship need it, so opening a container does not pay for it.
        private let indexByAccessor = LockedValue<[String: Int]?>(nil)

        private static func accessorTable(from indexByKeyPath: [AnyKeyPath: Int]) -> [String: Int] {
            var byAccessor: [String: Int] = [:]
            for (keyPath, index) in indexByKeyPath {
                if let components = KeyPathComponents.components(of: keyPath), components.count == 1 {
                    byAccessor[components[0].accessor] = index
                }
            }
            return byAccessor
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
                && lhs.relationships == rhs.relationships
                && lhs.uniquenessConstraints == rhs.uniquenessConstraints && lhs.indices == rhs.indices
        }

        /// Hashes the entity's name.
        public func hash(into hasher: inout Hasher) { hasher.combine(name) }
    }
}

extension Schema.Entity {
    /// One persisted property as the store sees it: an attribute, or a relationship and its column.
    package struct Field {
        package let name: String
        /// The name in a previous version of the schema, or `name`.
        package let originalName: String
        package let attribute: Schema.Attribute?
        package let relationship: Schema.Relationship?
        /// How the property's column stores values, or `nil` when the property has no column in
        /// the entity's table (a to-many relationship, or the side of a one-to-one without the key).
        package let storage: StorageClass?
        package let isOptional: Bool
        /// Whether the column is loaded on first access rather than with the row.
        package let isExternal: Bool
        /// Whether the attribute is `.ephemeral`: tracked in memory, never stored. Its column holds
        /// the value a new model starts with (the declared initial value, `nil`, or the type's
        /// placeholder), which is what a model fetched from the store reads.
        package let isEphemeral: Bool
        /// Whether the column holds the bytes a `.transformable(by:)` attribute's transformer made
        /// of a value that is not `Codable`: their equality and order are not the value's, so
        /// predicates and sorts that use the attribute run in Swift.
        package let isTransformed: Bool

        init(_ property: (any SchemaProperty)?) {
            name = property?.name ?? ""
            originalName = property?.originalName ?? name
            attribute = property as? Schema.Attribute
            relationship = property as? Schema.Relationship
            if let attribute {
                storage = attribute.storage
                isOptional = attribute.isOptional
                isExternal = attribute.isExternal
                isEphemeral = attribute.options.contains(.ephemeral)
                isTransformed = attribute.storage == .blob && attribute.options.contains { $0.transformerName != nil }
                    && !(attribute.valueType is any _PersistentScalar.Type)
            } else {
                // Foreign keys are nullable even for a non-optional to-one: a save inserts rows
                // before it links rows that are new in the same save.
                storage = relationship?.storage == .foreignKey ? .integer : nil
                isOptional = true
                isExternal = false
                isEphemeral = false
                isTransformed = false
            }
        }

        /// Whether the property has a column in the entity's table.
        package var hasColumn: Bool { storage != nil }
    }
}
