/// One model of a container as a replicator (the sync engine) copies it between stores: the
/// properties it copies are the ones the model's own row keeps. Attributes with a column (not
/// `.ephemeral`), to-one relationships whose key is in the row, and the owning side of
/// many-to-many and one-way to-many relationships; the other side of a relationship follows from
/// these.
package struct ReplicatedEntity: @unchecked Sendable {
    // @unchecked Sendable: the entity is immutable once its schema is made.

    /// The model's entity.
    package let entity: Schema.Entity
    /// The indices of the properties copied, in the entity's order.
    package let properties: [Int]

    /// The entity's name.
    package var name: String { entity.name }

    init(_ entity: Schema.Entity) {
        self.entity = entity
        self.properties = entity.fields.indices.filter { index in
            let field = entity.fields[index]
            if let link = entity.links[index] {
                switch link.storage {
                case .foreignKey, .link(_, ownerIsSource: true): return true
                case .inverseForeignKey, .link(_, ownerIsSource: false): return false
                }
            }
            return field.hasColumn && !field.isEphemeral
        }
    }

    /// The name of the property at `index`.
    package func name(of index: Int) -> String { entity.fields[index].name }

    /// The storage of the property at `index`: how its values are kept, or `nil` for a relationship.
    package func storage(of index: Int) -> StorageClass? {
        entity.links[index] == nil ? entity.fields[index].storage : nil
    }

    /// Whether the property at `index` relates to other models, and whether to many.
    package func relationship(of index: Int) -> (destination: String, isToMany: Bool)? {
        entity.links[index].map { ($0.destinationName, $0.isToMany) }
    }

    /// Whether the property at `index` may hold no value.
    package func isOptional(_ index: Int) -> Bool { entity.fields[index].isOptional }
}

/// The store a replicator works on: its history (the outbox and the change feed) and the records it
/// keeps beside the models.
package struct ReplicationStore: @unchecked Sendable {
    // @unchecked Sendable: each store is Sendable; the existentials of package protocols are not
    // declared so.
    package let history: any HistoryRecordingStore
    package let records: any CompanionRecordStore
    /// The store's identifier, as persistent identifiers name it.
    package var identifier: String { records.identifier }
}

extension ModelContainer {
    /// The models of the container as a replicator copies them, each model once.
    package var replicatedEntities: [ReplicatedEntity] {
        schema.entities.map(ReplicatedEntity.init)
    }

    /// The container's one store, for a replicator.
    ///
    /// - Throws: ``SwiftDataError`` when the container has several stores, or a store that keeps
    ///   no history or no records beside its models.
    package func replicationStore(for purpose: String) throws -> ReplicationStore {
        guard stores.count == 1 else {
            throw SwiftDataError(.loadIssueModelContainer, reason: "\(purpose) works on a container of one store; this one has \(stores.count)")
        }
        guard let history = stores[0].capabilities.history, let records = stores[0].store as? any CompanionRecordStore else {
            throw SwiftDataError(.loadIssueModelContainer, reason: "\(purpose) needs a store that keeps its history and records beside its models (the SQLite store); this container's store does not")
        }
        return ReplicationStore(history: history, records: records)
    }
}
