/// Reading and writing models' properties by index, for a replicator that copies them between
/// stores without knowing their classes, and saving what it wrote with its own records.
extension ModelContext {
    /// Saves, writing the records `records` makes in the same transaction, after the models' rows
    /// (inserted models have their keys when it runs). Nothing is written unless both are.
    package func save(writingCompanionRecords records: @escaping () throws -> [CompanionRecord]) throws {
        guard hasChanges else {
            let store = try container.replicationStore(for: "Writing records beside the models")
            return try store.records.writeCompanionRecords(try records())
        }
        saving.companionRecords = records
        defer { saving.companionRecords = nil }
        try save()
    }

    /// The value of one property of a model, as a replicator copies it: an attribute in its stored
    /// form, a to-one relationship as the related model's identifier (or `.null`), a to-many
    /// relationship as its models' identifiers. Related models must be saved.
    package func replicatedValue(of model: any PersistentModel, property index: Int, in entity: ReplicatedEntity) throws -> SnapshotValue {
        if let link = entity.entity.links[index] {
            var related: [PersistentIdentifier] = []
            model._osdVisitRelated(property: index, loading: true) { related.append($0.persistentModelID) }
            try throwDeferredReadFailure()
            if link.isToMany { return .identifiers(related) }
            return related.first.map(SnapshotValue.identifier) ?? .null
        }
        let writer = SnapshotWriter(entity: entity.entity, identifierOfKey: { _ in nil })
        // A model made from an identifier loads its row first; an external-storage value, which a
        // fetch leaves in the store, loads on its own (both only when unchanged in memory).
        let state = model._osdState
        if state.primaryKey != 0, state.isFault || entity.entity.fields[index].isExternal,
           model._osdChangedProperties & (1 << UInt64(index)) == 0 {
            try load(model, property: index)
        }
        try PropertyEncoding.encode(model, property: index, of: entity.entity, to: writer, at: Int32(index), deferring: _DeferredLinks())
        return writer.values[index] ?? .null
    }

    /// Sets one property of a model to a value in the form ``replicatedValue(of:property:in:)``
    /// gives, and records the change for the next save. A relationship's identifiers name models
    /// of this context (new ones by their temporary identifiers) or rows of the store.
    package func setReplicatedValue(_ value: SnapshotValue, of model: any PersistentModel, property index: Int, in entity: ReplicatedEntity) throws {
        if entity.entity.links[index] != nil {
            let identifiers: [PersistentIdentifier] = switch value {
            case .identifier(let id): [id]
            case .identifiers(let ids): ids
            default: []
            }
            let related: [AnyObject] = identifiers.map { self.model(for: $0) }
            model._osdSetRelated(property: index, to: related)
        } else {
            let row = SnapshotRow(columns: [value], _context: (entity.name, entity.name(of: index)))
            try model._osdDecode(property: index, from: row, at: 0, resolving: self)
        }
        model._osdDidChange(property: index)
    }

    /// Makes a new model of an entity, inserted into the context, whose properties the caller sets
    /// with ``setReplicatedValue(_:of:property:in:)`` before the next save. The properties a
    /// replicator does not copy start empty (the other side of a relationship) or at their
    /// default (an `.ephemeral` attribute).
    package func insertReplicatedModel(of entity: ReplicatedEntity) throws -> any PersistentModel {
        let model = entity.entity.modelType._osdMake()
        let copied = Set(entity.properties)
        for index in entity.entity.fields.indices where !copied.contains(index) {
            if entity.entity.links[index] != nil {
                model._osdSetRelated(property: index, to: [])
            } else if let initial = try defaultReplicatedValue(property: index, in: entity) {
                let row = SnapshotRow(columns: [initial], _context: (entity.name, entity.name(of: index)))
                try model._osdDecode(property: index, from: row, at: 0, resolving: self)
            }
        }
        insert(model)
        return model
    }
}

extension ModelContext {
    /// Whether the context's deletions apply the models' delete rules (`.cascade`, `.deny`), as
    /// SwiftData's always do. A replicator that applies deletions made elsewhere turns them off:
    /// those deletions already hold every model the rules reached where they were made, and a
    /// model related here alone is only unlinked, as `.nullify` does.
    package var appliesDeleteRules: Bool {
        get { saving.appliesDeleteRules }
        set { saving.appliesDeleteRules = newValue }
    }

    /// The model of a row of the store, or `nil` when the store holds no such row.
    ///
    /// - Throws: The error that stopped reading the row.
    package func existingReplicatedModel(entity: String, key: Int64) throws -> (any PersistentModel)? {
        guard let schemaEntity = container.schema.entitiesByName[entity] else { return nil }
        let id = PersistentIdentifier(storeIdentifier: container.store(for: schemaEntity).identifier, entityName: entity, key: .permanent(key))
        let model = existingModel(id)
        try throwDeferredReadFailure()
        return model
    }

    /// The models of rows of one entity's table, by key; a key the store does not hold is absent.
    /// One look for other contexts' saves, then one read of the rows.
    ///
    /// - Throws: The error that stopped reading the rows.
    package func existingReplicatedModels(entity name: String, keys: [Int64]) throws -> [Int64: any PersistentModel] {
        guard let entity = container.schema.entitiesByName[name], !keys.isEmpty else { return [:] }
        mergeChangesFromOtherContexts()
        try throwDeferredReadFailure()
        var result: [Int64: any PersistentModel] = [:]
        let registered = registeredModels(of: entity)
        var missing: [Int64] = []
        for key in keys {
            if let model = registered.model(forKey: key) {
                if !model._osdState.isDeleted { result[key] = model }
            } else {
                missing.append(key)
            }
        }
        guard !missing.isEmpty else { return result }
        let store = container.store(for: entity)
        let shape = try store.rowShape(of: entity)
        try store.forEachRow(of: entity, primaryKeys: missing) { row in
            let model = try materialize(row, shape: shape, attributes: nil, registered: registered)
            result[model._osdState.primaryKey] = model
        }
        return result
    }

    /// The keys of every row of one entity's table.
    ///
    /// - Throws: The error that stopped reading the keys.
    package func replicatedKeys(entity name: String) throws -> [Int64] {
        guard let entity = container.schema.entitiesByName[name] else { return [] }
        return try container.store(for: entity).primaryKeys(StoreFetch(entity: entity))
    }

    /// The identifier of a row of the store.
    package func replicatedIdentifier(entity: String, key: Int64) -> PersistentIdentifier? {
        guard let schemaEntity = container.schema.entitiesByName[entity] else { return nil }
        return PersistentIdentifier(storeIdentifier: container.store(for: schemaEntity).identifier, entityName: entity, key: .permanent(key))
    }

    /// The value a new model of the entity starts with for a property it was given no value for:
    /// the declared default, `nil` for an optional, or `nil` (no value) when there is neither.
    package func defaultReplicatedValue(property index: Int, in entity: ReplicatedEntity) throws -> SnapshotValue? {
        let writer = SnapshotWriter(entity: entity.entity, identifierOfKey: { _ in nil })
        if try entity.entity.modelType._osdWriteDefault(property: index, to: writer, at: Int32(index)), let value = writer.values[index] {
            return value
        }
        if entity.entity.links[index]?.isToMany == true { return .identifiers([]) }
        return entity.isOptional(index) ? .null : nil
    }
}

extension PersistentIdentifier {
    /// The row's key in its store, or `nil` for a model not saved yet.
    package var storeKey: Int64? { primaryKey }
}
