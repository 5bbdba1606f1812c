extension ModelContext {
    /// The model of a to-one relationship's stored key: the registered instance, or a fault that
    /// loads its row on first access. Called while a row decodes.
    func relatedModel<R: PersistentModel>(_ type: R.Type, primaryKey: Int64) throws -> R {
        // Rows of one fetch relate to models of one entity: its identity map is looked up once.
        let registered = try relatedEntity(R.self)
        if let existing = registered.models.model(R.self, forKey: primaryKey) { return existing }
        if primaryKey == 0 { throw Self.rowWithKeyZero(in: registered.entity) }
        if !registered.entity.descendants.isEmpty {
            return try polymorphicModel(R.self, primaryKey: primaryKey, base: registered.entity)
        }
        return unsafeDowncast(makeFault(R.self, primaryKey: primaryKey, entity: registered.entity), to: R.self)
    }

    /// The model a key names when the relationship's class has subclasses: the key is in the
    /// table of exactly one class of the hierarchy (the hierarchy shares one key space).
    private func polymorphicModel<R: PersistentModel>(_ type: R.Type, primaryKey: Int64, base: Schema.Entity) throws -> R {
        func related(_ model: any PersistentModel, _ entity: Schema.Entity) throws -> R {
            // A class of `base`'s hierarchy is `R` or a subclass of it; anything else is a broken schema.
            guard let model = model as? R else {
                throw SwiftDataError(.modelValidationFailure, reason: "\(entity.name) row \(primaryKey) is not a \(base.name)")
            }
            return model
        }
        for entity in base.concreteEntities {
            if let existing = registeredModels(of: entity).model(forKey: primaryKey) { return try related(existing, entity) }
        }
        for entity in base.descendants where try container.store(for: entity).rowExists(of: entity, key: primaryKey) {
            return try related(makeFault(entity.modelType, primaryKey: primaryKey, entity: entity), entity)
        }
        return unsafeDowncast(makeFault(R.self, primaryKey: primaryKey, entity: base), to: R.self)
    }

    /// Loads one relationship of a saved model from the store.
    func loadRelationship<M: PersistentModel>(_ model: M, link: RelationshipLink, shape: RowShape) throws {
        let key = model._osdState.primaryKey
        switch link.storage {
        case .foreignKey:
            let entity = shape.entity
            let found = try container.store(for: entity).loadAttribute(of: entity, primaryKey: key, attribute: link.property) { row in
                try model._osdDecode(property: link.property, from: row, at: 0, resolving: self)
            }
            guard found else {
                throw SwiftDataError(.modelNotFound, reason: "\(entity.name) row \(key) no longer exists")
            }
        case .inverseForeignKey, .link:
            let grouped = try relatedRows(of: link, from: shape.entity, owners: [key])
            model._osdSetRelated(property: link.property, to: grouped[key] ?? [])
        }
    }

    /// The models related to each of `owners` through `link`, grouped by owner, each group in
    /// primary-key order: one query whatever the number of owners.
    func relatedRows(of link: RelationshipLink, from source: Schema.Entity, owners: [Int64]) throws -> [Int64: [AnyObject]] {
        guard let destination = container.schema.entitiesByName[link.destinationName] else {
            throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, reason: "\(link.destinationName), related to \(source.name).\(link.name), is not in the container's schema")
        }
        guard destination.descendants.isEmpty else {
            // Related models of a class hierarchy: each class's table, merged in key order.
            var merged: [Int64: [AnyObject]] = [:]
            for entity in destination.concreteEntities {
                for (owner, models) in try relatedRows(of: link, from: source, owners: owners, destination: entity) {
                    merged[owner, default: []] += models
                }
            }
            // Every object a store fetch materializes is a model.
            func key(_ object: AnyObject) -> Int64 { (object as? any PersistentModel)?._osdState.primaryKey ?? 0 }
            return merged.mapValues { $0.sorted { key($0) < key($1) } }
        }
        return try relatedRows(of: link, from: source, owners: owners, destination: destination)
    }

    /// The rows of one destination entity related to each of `owners`.
    private func relatedRows(of link: RelationshipLink, from source: Schema.Entity, owners: [Int64], destination: Schema.Entity) throws -> [Int64: [AnyObject]] {
        let store = container.store(for: destination)
        let target = try store.rowShape(of: destination)
        let registered = registeredModels(of: destination)
        var grouped: [Int64: [AnyObject]] = [:]
        // Rows come grouped by owner, each group in key order: collect each run, then store it once.
        var currentOwner: Int64?
        var current: [AnyObject] = []
        try store.forEachRelatedRow(of: link, from: source, owners: owners, destination: destination) { row, owner in
            let model = try materialize(row, shape: target, attributes: nil, registered: registered)
            if owner != currentOwner {
                if let currentOwner { grouped[currentOwner] = current }
                currentOwner = owner
                // Owners tend to have alike numbers of related rows: the next run starts with
                // room for as many as the last one, instead of growing to it step by step.
                let last = current.count
                current = []
                current.reserveCapacity(last)
            }
            current.append(model)
        }
        if let currentOwner { grouped[currentOwner] = current }
        return grouped
    }

    /// Loads the relationships named by a fetch's `relationshipKeyPathsForPrefetching` for all
    /// results at once: one query per key path.
    func prefetch(_ keyPaths: [AnyKeyPath], of models: [any PersistentModel], shape: RowShape) throws {
        let entity = shape.entity
        guard !models.isEmpty else { return }
        for keyPath in keyPaths {
            guard let property = entity.propertyIndex(for: keyPath), let link = entity.links[property] else { continue }
            let bit = UInt64(1) << UInt64(property)
            let owners = models.filter { !$0._osdState.isInserted && $0._osdState.changedProperties & bit == 0 }
            let grouped = try relatedRows(of: link, from: entity, owners: owners.map { $0._osdState.primaryKey })
            for owner in owners {
                owner._osdSetRelated(property: property, to: grouped[owner._osdState.primaryKey] ?? [])
            }
        }
    }

    /// Inserts the new models reachable from `model` through its loaded relationships, and makes
    /// the inverses of the relationships they were initialized with consistent (an initializer's
    /// assignments bypass the setters that keep inverses).
    func insertReachable(from model: any PersistentModel, entity first: Schema.Entity) {
        guard !first.links.isEmpty else { return }
        // Most new models reach no other new model: the list of models still to visit is made
        // only when one does.
        var pending: [(model: any PersistentModel, entity: Schema.Entity?)] = []
        insertRelated(to: model, entity: first, pending: &pending)
        while let (next, known) = pending.popLast() {
            guard let entity = known ?? entity(of: next), !entity.links.isEmpty else { continue }
            insertRelated(to: next, entity: entity, pending: &pending)
        }
    }

    /// Inserts the new models that `model`'s loaded relationships hold, adding them to `pending`,
    /// and sets the inverses of those relationships.
    private func insertRelated(
        to model: any PersistentModel, entity: Schema.Entity,
        pending: inout [(model: any PersistentModel, entity: Schema.Entity?)]
    ) {
        for (property, link) in entity.links {
            var related: [any PersistentModel] = []
            model._osdVisitRelated(property: property, loading: false) { related.append($0) }
            for target in related {
                let state = target._osdState
                if state.context == nil, !state.isDeleted, state.primaryKey == 0 {
                    pending.append((target, insertOne(target)))
                } else if let owner = state.context, owner !== self {
                    noteCrossContextRelationship(entity: entity, link: link)
                    continue
                }
                guard let inverse = link.inverse else { continue }
                if let displaced = RelationshipMaintenance.relate(target, property: inverse, to: model, adding: true), displaced !== model {
                    RelationshipMaintenance.relate(displaced, property: property, to: target, adding: false)
                }
            }
        }
    }

    /// Remembers that a relationship was given a model of another context; the next save throws.
    func noteCrossContextRelationship(entity: Schema.Entity, link: RelationshipLink) {
        guard failures.crossContextRelationship == nil else { return }
        failures.crossContextRelationship = SwiftDataError.modelValidationFailure(
            model: entity.name, property: link.name,
            reason: "it holds a \(link.destinationName) that belongs to another ModelContext; relate models of one context (use model(for: persistentModelID) to get this context's instance)")
    }

    /// Throws, before a save, if a relationship holds fewer or more models than its
    /// `minimumModelCount` or `maximumModelCount` allow, or still holds a model of another context.
    func validateRelationships(in container: ModelContainer) throws {
        if container.schema.hasRelationshipCountLimits { try validateRelationshipCounts() }
        guard failures.crossContextRelationship != nil else { return }
        for model in tracker.insertedModels + tracker.changed where !model._osdState.isDeleted {
            let state = model._osdState
            guard let entity = entity(of: model) else { continue }
            for (property, link) in entity.links where state.isInserted || state.changedProperties & (1 << UInt64(property)) != 0 {
                var foreign = false
                model._osdVisitRelated(property: property, loading: false) { related in
                    if let owner = related._osdState.context, owner !== self { foreign = true }
                }
                if foreign {
                    failures.crossContextRelationship = nil
                    noteCrossContextRelationship(entity: entity, link: link)
                    throw failures.crossContextRelationship!
                }
            }
        }
        // The offending model was removed since.
        failures.crossContextRelationship = nil
    }

    private func validateRelationshipCounts() throws {
        for model in tracker.insertedModels + tracker.changed where !model._osdState.isDeleted {
            let state = model._osdState
            guard let entity = entity(of: model) else { continue }
            for (property, limit) in entity.relationshipCountLimits where state.isInserted || state.changedProperties & (1 << UInt64(property)) != 0 {
                var count = 0
                model._osdVisitRelated(property: property, loading: false) { _ in count += 1 }
                if count < limit.minimum || (limit.maximum > 0 && count > limit.maximum) {
                    let bounds = limit.maximum > 0 ? "\(limit.minimum) to \(limit.maximum)" : "at least \(limit.minimum)"
                    throw SwiftDataError.modelValidationFailure(
                        model: entity.name, property: entity.fields[property].name,
                        reason: "it holds \(count) models; its minimumModelCount and maximumModelCount allow \(bounds)")
                }
            }
        }
    }
}
