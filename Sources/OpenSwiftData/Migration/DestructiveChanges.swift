/// What a lightweight migration from a store's recorded schema to the models' would delete: the
/// tables of models the schema no longer has, the columns of properties and to-one relationships
/// it no longer has (under their name or as another's `originalName`), and the link tables of
/// to-many relationships it no longer has.
///
/// Stores check these before they migrate when their configuration refuses destructive changes
/// (``ModelConfiguration/allowsDestructiveMigration``): each store counts the rows that hold
/// data in each place, and a place that holds any refuses the open with
/// ``SwiftDataError/destructiveMigration``. A migration plan's stages are never refused: a plan
/// says what it removes.
package struct DestructiveChanges {
    /// One place a migration would delete.
    package enum Removal: Equatable, Sendable {
        /// A model's table.
        case model(entity: String)
        /// A property's column: an attribute, or a to-one relationship's foreign key.
        case property(entity: String, name: String)
        /// The link table of a to-many relationship (`Entity.property` names it).
        case link(table: String, relationship: String)

        /// The place as an error names it.
        package var description: String {
            switch self {
            case .model(let entity): "model \(entity)"
            case .property(let entity, let name): "\(entity).\(name)"
            case .link(_, let relationship): "relationship \(relationship)"
            }
        }
    }

    /// The places the migration would delete, in a stable order.
    package let removals: [Removal]

    /// The removals of a migration from `recorded` (the store's schema) to `models`.
    package init(from recorded: StoredSchema, to models: StoredSchema) {
        let current = Dictionary(models.entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var removals: [Removal] = []
        for old in recorded.entities {
            guard let entity = current[old.name] else {
                removals.append(.model(entity: old.name))
                continue
            }
            let kept = Set(entity.attributes.flatMap { [$0.name, $0.originalName].compactMap { $0 } })
            for attribute in old.attributes where !kept.contains(attribute.name) {
                removals.append(.property(entity: old.name, name: attribute.name))
            }
        }
        var keptLinks = Set(models.links ?? [])
        for entity in models.entities {
            for relationship in entity.relationships ?? [] where relationship.storage == "link" && relationship.ownsLink == true {
                guard let original = relationship.originalName else { continue }
                keptLinks.insert(LinkName(entity: entity.name, property: original).table)
            }
        }
        let linkNames = Dictionary(
            recorded.entities.flatMap { entity in
                (entity.relationships ?? []).compactMap { relationship in
                    relationship.linkName.map { ($0.table, "\(entity.name).\(relationship.name)") }
                }
            },
            uniquingKeysWith: { first, _ in first })
        for table in (recorded.links ?? []).sorted() where !keptLinks.contains(table) {
            removals.append(.link(table: table, relationship: linkNames[table] ?? table))
        }
        self.removals = removals
    }

    /// Throws ``SwiftDataError/destructiveMigration`` naming every removal whose place holds data
    /// (`rowsHoldingData` counts them: a table's rows, or the rows whose column is not `NULL`).
    ///
    /// - Parameter place: The store, as the error names it.
    package func refuse(place: String, rowsHoldingData: (Removal) throws -> Int64) throws {
        var lost: [String] = []
        for removal in removals {
            let rows = try rowsHoldingData(removal)
            if rows > 0 { lost.append("\(removal.description) (\(rows) row\(rows == 1 ? "" : "s"))") }
        }
        guard !lost.isEmpty else { return }
        throw SwiftDataError(.destructiveMigration, reason: """
            Opening \(place) would delete data the models no longer declare: \(lost.joined(separator: ", ")). \
            Nothing was changed. Remove them in a SchemaMigrationPlan stage, or let lightweight migrations \
            delete data (allowsDestructiveMigration = true on the configuration).
            """)
    }
}
