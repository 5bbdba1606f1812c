/// A place where a store keeps references to rows of an entity: what must change when such rows
/// are deleted, so that no stored relationship names a missing row. Stores render each as their
/// own statement.
package enum StoredReference: Hashable, Sendable {
    /// A to-one relationship's key column (`property` of `entity`): set to NULL.
    case foreignKey(entity: String, property: Int)
    /// The pairs a deleted owner of a many-to-many or one-way to-many relationship has: deleted.
    case linkOwner(LinkName)
    /// The pairs that name a deleted target: deleted.
    case linkTarget(LinkName)

    /// For each entity, every place that refers to its rows. A reference to a class with
    /// subclasses can hold the key of any of their rows, so it is listed for each of them.
    package static func byTarget(in entities: [Schema.Entity]) -> [String: [StoredReference]] {
        let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var result: [String: Set<StoredReference>] = [:]
        for entity in entities {
            for (property, link) in entity.links {
                let targets = [link.destinationName] + (byName[link.destinationName]?.descendants.map(\.name) ?? [])
                switch link.storage {
                case .foreignKey:
                    for target in targets { result[target, default: []].insert(.foreignKey(entity: entity.name, property: property)) }
                case .link(let name, true):
                    result[entity.name, default: []].insert(.linkOwner(name))
                    for target in targets { result[target, default: []].insert(.linkTarget(name)) }
                case .link, .inverseForeignKey:
                    break
                }
            }
        }
        return result.mapValues { Array($0) }
    }
}

/// One statement a store runs to remove references to deleted rows, in the store's own SQL.
package struct ReferenceCleanup: Sendable {
    /// The statement.
    package let sql: String
    /// For a statement that sets a to-one relationship's key to NULL, the entity whose rows it
    /// changes and the relationship's property: each such row is an update of that property in
    /// the save's history, as when the context nullifies the relationship itself.
    package let nullified: (entity: Schema.Entity, property: Int)?

    /// A statement, and what it nullifies, if anything.
    package init(sql: String, nullifying nullified: (entity: Schema.Entity, property: Int)? = nil) {
        self.sql = sql
        self.nullified = nullified
    }
}

extension ReferenceCleanup {
    /// For each entity, by name, the statements a store runs to remove references to its deleted
    /// rows, in a stable order. `setNull` writes the statement that sets `property` of the entity
    /// named `referring` to NULL where it names a deleted row of `target` (`nil` when the store has
    /// no table for it); `deleteLinks` writes the one that deletes the rows of a link table whose
    /// `column` (`owner` or `target`) names one.
    package static func byTarget(
        in entities: [Schema.Entity],
        setNull: (_ referring: String, _ property: Int, _ target: String) -> String?,
        deleteLinks: (_ link: LinkName, _ column: String, _ target: String) -> String
    ) -> [String: [ReferenceCleanup]] {
        let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var result: [String: [ReferenceCleanup]] = [:]
        for (target, references) in StoredReference.byTarget(in: entities) {
            result[target] = references.compactMap { reference -> ReferenceCleanup? in
                switch reference {
                case .foreignKey(let referring, let property):
                    guard let entity = byName[referring], let sql = setNull(referring, property, target) else { return nil }
                    return ReferenceCleanup(sql: sql, nullifying: (entity, property))
                case .linkOwner(let link): return ReferenceCleanup(sql: deleteLinks(link, "owner", target))
                case .linkTarget(let link): return ReferenceCleanup(sql: deleteLinks(link, "target", target))
                }
            }.sorted { $0.sql < $1.sql }
        }
        return result
    }
}
