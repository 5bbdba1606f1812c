extension StoredSchema {
    /// The record OpenSwiftData's stores keep for model classes that declare these entities,
    /// attributes and relationships (the classes `osd generate models` writes for them): each
    /// relationship kept where the models keep it, as a foreign key in this entity's table or in
    /// the destination's, or as pairs in a link table, with its inverse inferred as the models
    /// infer it when none is recorded.
    ///
    /// A store created with this record opens with those classes as their own, with nothing to
    /// migrate. The record of a store Apple's Core Data wrote describes its relationships where
    /// Core Data keeps them; this is the record of a new store for the same models.
    package func keptAsModels() -> StoredSchema {
        let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        func relationships(of entity: String) -> [Relationship] { byName[entity]?.recordedRelationships ?? [] }
        // The class that declares an inherited relationship names its link table.
        func declaring(_ name: String, in entity: String) -> String {
            var declaring = entity
            var seen: Set<String> = [entity]
            while let parent = byName[declaring]?.superentity, seen.insert(parent).inserted,
                  relationships(of: parent).contains(where: { $0.name == name }) { declaring = parent }
            return declaring
        }
        var kept = self
        kept.entities = entities.map { entity in
            var entity = entity
            let recorded = entity.recordedRelationships
            entity.relationships = recorded.map { relationship in
                var relationship = relationship
                relationship.inverse = relationship.inverse ?? inferredInverse(of: relationship, in: entity.name, byName: byName)
                let inverse = relationship.inverse.flatMap { name in relationships(of: relationship.destination).first { $0.name == name } }
                let source = (declaring(relationship.name, in: entity.name), relationship.name)
                (relationship.link, relationship.ownsLink) = (nil, nil)
                if !relationship.isToMany {
                    let keyIsOnTheOtherSide = inverse.map { !$0.isToMany && (relationship.destination, $0.name) < source } ?? false
                    relationship.storage = keyIsOnTheOtherSide ? "inverse" : "column"
                } else if let inverse, !inverse.isToMany {
                    relationship.storage = "inverse"
                } else if let inverse, (relationship.destination, inverse.name) < source {
                    (relationship.storage, relationship.link, relationship.ownsLink) = ("link", "\(relationship.destination).\(inverse.name)", false)
                } else {
                    (relationship.storage, relationship.link, relationship.ownsLink) = ("link", "\(source.0).\(source.1)", true)
                }
                return relationship
            }
            // A foreign key's column for each to-one relationship this table keeps, and none for the others.
            let columns = (entity.relationships ?? []).filter { $0.storage == "column" }.map(\.name)
            let names = Set(recorded.map(\.name))
            entity.attributes = entity.attributes.filter { !names.contains($0.name) }
                + columns.map { name in entity.attributes.first { $0.name == name } ?? Attribute(name: name, storage: .integer, isOptional: true) }
            return entity
        }
        kept.links = Array(Set(kept.entities.flatMap { entity in
            entity.recordedRelationships.filter { $0.ownsLink == true }.compactMap { $0.linkName?.table }
        })).sorted()
        return kept
    }

    /// The inverse the models infer for a relationship that declares none: the destination's
    /// relationship that declares this one as its inverse, or, as SwiftData infers it, the only relationship of the destination back to the source that declares none either,
    /// when the source has only one relationship to the destination, one side is to-one and
    /// every to-one side is optional.
    private func inferredInverse(of relationship: Relationship, in entity: String, byName: [String: Entity]) -> String? {
        guard relationship.destination != entity, let source = byName[entity], let destination = byName[relationship.destination] else { return nil }
        if let declaring = destination.recordedRelationships.first(where: { $0.destination == entity && $0.inverse == relationship.name }) {
            return declaring.name
        }
        let ownToDestination = source.recordedRelationships.filter { $0.destination == relationship.destination }
        let candidates = destination.recordedRelationships.filter { $0.destination == entity && $0.inverse == nil }
        guard ownToDestination.count == 1, candidates.count == 1 else { return nil }
        let sides = [relationship, candidates[0]]
        guard sides.contains(where: { !$0.isToMany }), !sides.contains(where: { !$0.isToMany && !$0.isOptional }) else { return nil }
        return candidates[0].name
    }
}

extension StoredSchema {
    /// This record without the models and properties `names` lists (`Model` or `Model.property`),
    /// nor the relationships to a model it leaves out; a relationship whose inverse is left out
    /// becomes one-way.
    package func leavingOut(_ names: Set<String>) -> StoredSchema {
        if names.isEmpty { return self }
        var kept = self
        kept.entities = entities.filter { !names.contains($0.name) }.map { entity in
            var entity = entity
            let recorded = entity.recordedRelationships
            func keeps(_ property: String) -> Bool { !names.contains("\(entity.name).\(property)") }
            entity.relationships = entity.relationships?.filter { keeps($0.name) && !names.contains($0.destination) }.map { relationship in
                var relationship = relationship
                if let inverse = relationship.inverse, names.contains("\(relationship.destination).\(inverse)") { relationship.inverse = nil }
                return relationship
            }
            // A to-one relationship left out takes its foreign key's column along.
            let removedRelationships = Set(recorded.map(\.name)).subtracting(entity.recordedRelationships.map(\.name))
            entity.attributes = entity.attributes.filter { keeps($0.name) && !removedRelationships.contains($0.name) }
            entity.uniquenessConstraints = entity.uniquenessConstraints.filter { $0.allSatisfy(keeps) }
            entity.indices = entity.indices.filter { $0.allSatisfy(keeps) }
            return entity
        }
        return kept
    }
}
