/// What a store creates for one entity, whatever its SQL: the table's columns, its uniqueness
/// constraints and indexes, the foreign keys it indexes, the link tables it owns and the class
/// hierarchy whose keys it shares.
///
/// Made from the schema record (``StoredSchema``), so that a store created by the app's models and
/// one created from a record alone (an import of an Apple-written store into a new store) hold the
/// same tables.
package struct TableDefinition: Sendable, Equatable {
    /// The entity's name, the name of its table.
    package var entity: String
    /// The columns besides the primary key, in property order.
    package var columns: [StoredSchema.Attribute]
    /// The column names of each uniqueness constraint.
    package var uniquenessConstraints: [[String]]
    /// The column names of each index.
    package var indices: [[String]]
    /// The to-one relationships whose foreign key the table holds, in property order.
    package var foreignKeys: [String]
    /// The link tables the entity owns, ordered by table name.
    package var ownedLinks: [LinkName]
    /// The topmost entity of the entity's class hierarchy, whose keys every table of the hierarchy
    /// shares; `nil` outside hierarchies.
    package var hierarchyRoot: String?

    /// The definition of a recorded entity of `schema`.
    package init(_ entity: StoredSchema.Entity, in schema: StoredSchema) {
        self.init(entity, hierarchyRoot: schema.hierarchyRoot(of: entity.name))
    }

    /// The definition of an entity of the models.
    package init(_ entity: Schema.Entity) {
        self.init(StoredSchema.Entity(entity), hierarchyRoot: entity.isInHierarchy ? entity.root.name : nil)
    }

    private init(_ entity: StoredSchema.Entity, hierarchyRoot: String?) {
        self.entity = entity.name
        columns = entity.attributes
        uniquenessConstraints = entity.uniquenessConstraints
        indices = entity.indices
        let relationships = entity.relationships ?? []
        foreignKeys = relationships.filter { $0.storage == "column" }.map(\.name)
        ownedLinks = relationships.filter { $0.storage == "link" && $0.ownsLink == true }.compactMap(\.linkName)
            .sorted { $0.table < $1.table }
        self.hierarchyRoot = hierarchyRoot
    }

    /// How the column `name` stores values, or `nil` when the table has no such column.
    package func storage(of name: String) -> StorageClass? {
        columns.first { $0.name == name }?.storage
    }
}
