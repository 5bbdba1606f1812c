/// How the models of a program relate: for each model class, its persisted properties and, for
/// each relationship, its inverse and where the store keeps it.
///
/// Worked out once per class, from the metadata `@Model` generates, so that a model that no
/// context manages yet keeps its inverses consistent too.
enum ModelGraph {
    /// The description of one model class.
    final class Description: @unchecked Sendable {
        // @unchecked Sendable: built once under the cache's lock, immutable afterwards.
        let metadata: [Schema.PropertyMetadata]
        /// The relationships, by property index.
        let links: [Int: RelationshipLink]

        init(metadata: [Schema.PropertyMetadata], links: [Int: RelationshipLink]) {
            self.metadata = metadata
            self.links = links
        }
    }

    private static let cache = LockedValue<[ObjectIdentifier: Description]>([:])

    /// The description of a model class.
    static func description(of type: any PersistentModel.Type) -> Description {
        if let known = cache.withValue({ $0[ObjectIdentifier(type)] }) { return known }
        let built = build(type)
        return cache.withValue { cache in
            if let known = cache[ObjectIdentifier(type)] { return known }
            cache[ObjectIdentifier(type)] = built
            return built
        }
    }

    /// The relationship of a model class at a property index.
    static func link(_ type: any PersistentModel.Type, property index: Int) -> RelationshipLink? {
        description(of: type).links[index]
    }

    private static func build(_ type: any PersistentModel.Type) -> Description {
        let metadata = type.schemaMetadata
        var links: [Int: RelationshipLink] = [:]
        for (index, property) in metadata.enumerated() {
            guard let relationship = property.metadata as? Schema.Relationship,
                  let destination = relationship.destinationType
            else { continue }
            let inverse = inverseIndex(of: index, in: type, metadata: metadata, destination: destination)
            let destinationMetadata = destination.schemaMetadata
            let inverseRelationship = inverse.flatMap { destinationMetadata[$0].metadata as? Schema.Relationship }
            relationship.inverseName = inverse.map { destinationMetadata[$0].name }
            // An inherited relationship is named after the class that declares it, so that a
            // class and its subclasses share one link table.
            var declaring: any PersistentModel.Type = type
            while let parent = declaring._osdSuperentity, parent.schemaMetadata.count > index { declaring = parent }
            let source = (declaring._osdEntityName, property.name)
            let storage: RelationshipLink.Storage
            if relationship.isToOneRelationship {
                if let inverseRelationship, inverseRelationship.isToOneRelationship,
                   (destination._osdEntityName, inverseRelationship.name) < source {
                    storage = .inverseForeignKey
                } else {
                    storage = .foreignKey
                }
            } else if let inverseRelationship, inverseRelationship.isToOneRelationship {
                storage = .inverseForeignKey
            } else if let inverseRelationship, (destination._osdEntityName, inverseRelationship.name) < source {
                storage = .link(LinkName(entity: destination._osdEntityName, property: inverseRelationship.name), ownerIsSource: false)
            } else {
                storage = .link(LinkName(entity: source.0, property: source.1), ownerIsSource: true)
            }
            relationship.storage = storage
            links[index] = RelationshipLink(
                property: index, name: property.name, isToMany: !relationship.isToOneRelationship,
                destination: destination, destinationName: destination._osdEntityName, inverse: inverse,
                inverseIsToMany: inverseRelationship.map { !$0.isToOneRelationship } ?? false,
                deleteRule: relationship.deleteRule, storage: storage)
        }
        return Description(metadata: metadata, links: links)
    }

    /// The inverse of a relationship: the one it declares, the one that declares it, or, inferred
    /// as SwiftData infers it, the only relationship back to the source when the source has only
    /// one relationship to the destination, one side is to-one and every to-one side is optional.
    /// SwiftData infers no many-to-many relationship (two arrays without `inverse:` are two
    /// one-way relationships), nor one whose to-one side is not optional.
    private static func inverseIndex(
        of index: Int, in type: any PersistentModel.Type, metadata: [Schema.PropertyMetadata],
        destination: any PersistentModel.Type
    ) -> Int? {
        guard let relationship = metadata[index].metadata as? Schema.Relationship else { return nil }
        let destinationMetadata = ObjectIdentifier(destination) == ObjectIdentifier(type) ? metadata : destination.schemaMetadata
        if let declared = relationship.inverseKeyPath {
            return destinationMetadata.firstIndex { $0.keypath == declared }
        }
        let ownKeyPath = metadata[index].keypath
        if let declaring = destinationMetadata.firstIndex(where: { ($0.metadata as? Schema.Relationship)?.inverseKeyPath == ownKeyPath }) {
            return declaring
        }
        guard ObjectIdentifier(destination) != ObjectIdentifier(type) else { return nil }
        func pointsBack(_ property: Schema.PropertyMetadata, to target: any PersistentModel.Type) -> Bool {
            guard let other = property.metadata as? Schema.Relationship, let otherDestination = other.destinationType else { return false }
            return ObjectIdentifier(otherDestination) == ObjectIdentifier(target)
        }
        let ownToDestination = metadata.filter { pointsBack($0, to: destination) }
        let candidates = destinationMetadata.indices.filter { candidate in
            pointsBack(destinationMetadata[candidate], to: type)
                && (destinationMetadata[candidate].metadata as? Schema.Relationship)?.inverseKeyPath == nil
        }
        guard ownToDestination.count == 1, candidates.count == 1,
              let other = destinationMetadata[candidates[0]].metadata as? Schema.Relationship
        else { return nil }
        let sides = [relationship, other]
        guard sides.contains(where: \.isToOneRelationship),
              !sides.contains(where: { $0.isToOneRelationship && !$0.isOptional })
        else { return nil }
        return candidates[0]
    }
}

/// One relationship of a model class, resolved: its inverse and where the store keeps it.
package final class RelationshipLink: @unchecked Sendable {
    // @unchecked Sendable: a metatype and plain values, immutable. A class, so that passing one
    // around (once per relationship set) costs one retain, not one per string inside.

    /// Where the store keeps a relationship.
    package enum Storage: Hashable, Sendable {
        /// A column of the source's table holds the related row's primary key.
        case foreignKey
        /// The inverse's foreign-key column, in the destination's table, points at the source.
        case inverseForeignKey
        /// (owner, target) pairs kept apart from both rows, under the name of the relationship
        /// that owns them; `ownerIsSource` tells which side this one is.
        case link(LinkName, ownerIsSource: Bool)
    }

    package let property: Int
    package let name: String
    package let isToMany: Bool
    package let destination: any PersistentModel.Type
    package let destinationName: String
    /// The inverse relationship's property index on the destination.
    package let inverse: Int?
    package let inverseIsToMany: Bool
    package let deleteRule: Schema.Relationship.DeleteRule
    package let storage: Storage

    init(
        property: Int, name: String, isToMany: Bool, destination: any PersistentModel.Type, destinationName: String,
        inverse: Int?, inverseIsToMany: Bool, deleteRule: Schema.Relationship.DeleteRule, storage: Storage
    ) {
        self.property = property
        self.name = name
        self.isToMany = isToMany
        self.destination = destination
        self.destinationName = destinationName
        self.inverse = inverse
        self.inverseIsToMany = inverseIsToMany
        self.deleteRule = deleteRule
        self.storage = storage
    }
}

/// Names the (owner, target) pairs of a many-to-many or one-way to-many relationship: the entity
/// and property of the relationship that owns them. How a store keeps them (SQLite: a table) is
/// the store's business.
package struct LinkName: Hashable, Sendable {
    /// The entity that declares the owning relationship.
    package var entity: String
    /// The owning relationship's property name.
    package var property: String

    package init(entity: String, property: String) {
        self.entity = entity
        self.property = property
    }
}
