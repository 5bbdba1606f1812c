import Foundation

extension ModelContext {
    /// Sets a property of every stored model of a type that satisfies a predicate, without loading
    /// the models, and saves the change.
    ///
    /// The update is a save of its own, in one transaction: it changes the stored models that
    /// satisfy the predicate (every stored model of the type when the predicate is `nil`), and
    /// either all of them change or, when it throws, none does. It does not write the context's
    /// unsaved inserts, changes and deletions, and the predicate sees the stored values, not
    /// those unsaved changes; call ``save()`` first when it should. Every context of the container
    /// (this one included) then sees the new value as it sees another context's save: a
    /// registered model reloads the property, unless the context changed that property and has
    /// not saved it, in which case the unsaved value stays and the next save writes it. The
    /// history records the update as one transaction by the context's ``author``, and other
    /// containers and processes learn of it from there.
    ///
    /// ```swift
    /// let archived = try context.update(model: Trip.self, where: #Predicate { $0.endDate < cutoff },
    ///                                   set: \.isArchived, to: true)
    /// ```
    ///
    /// When the store evaluates the whole predicate, the value is a standard type (a number,
    /// `Bool`, `String`, `Date`, `Data`, `UUID`, `URL`, `Decimal`, or one of these optional) and
    /// the property is part of no uniqueness constraint, the store changes the rows in one
    /// statement per table. Otherwise the models are fetched into a context of their own, set,
    /// and saved, with the same result.
    ///
    /// This method is an addition of OpenSwiftData; SwiftData has no batch updates.
    ///
    /// - Parameters:
    ///   - model: The type of the models to update.
    ///   - predicate: The models to update; every stored model of the type when `nil`.
    ///   - keyPath: A stored attribute of the model: not a relationship, a computed, `@Transient`
    ///     or `.ephemeral` property.
    ///   - value: The new value.
    ///   - includeSubclasses: Whether models of the subclasses of `model` are updated too.
    /// - Returns: How many models the update changed.
    /// - Throws: ``SwiftDataError/unsupportedKeyPath`` when `keyPath` is no stored attribute;
    ///   ``SwiftDataError/saveNotAllowed`` when the model's configuration does not allow saves;
    ///   ``SwiftDataError/modelValidationFailure`` naming the model and property when the store
    ///   cannot hold the value; the errors of ``save()`` otherwise. Nothing is changed then.
    @discardableResult
    public func update<T: PersistentModel, Value>(
        model: T.Type, where predicate: Predicate<T>? = nil, set keyPath: ReferenceWritableKeyPath<T, Value>,
        to value: Value, includeSubclasses: Bool = true
    ) throws -> Int {
        try update(model: model, where: predicate, setting: [.set(keyPath, to: value)], includeSubclasses: includeSubclasses)
    }

    /// Sets several properties of every stored model of a type that satisfies a predicate, in one
    /// transaction, without loading the models, and saves the change.
    ///
    /// The update behaves as ``update(model:where:set:to:includeSubclasses:)`` does, for every
    /// property at once: the models change together or not at all, and the history records one
    /// transaction.
    ///
    /// ```swift
    /// try context.update(model: Trip.self, where: #Predicate { $0.endDate < cutoff },
    ///                    .set(\.isArchived, to: true), .set(\.archivedAt, to: .now))
    /// ```
    ///
    /// This method is an addition of OpenSwiftData; SwiftData has no batch updates.
    ///
    /// - Parameters:
    ///   - model: The type of the models to update.
    ///   - predicate: The models to update; every stored model of the type when `nil`.
    ///   - updates: The properties to set and their values. A property named twice gets the
    ///     last value, as two assignments in a row would leave it.
    ///   - includeSubclasses: Whether models of the subclasses of `model` are updated too.
    /// - Returns: How many models the update changed; 0, with nothing read, when `updates` is
    ///   empty.
    /// - Throws: The errors of ``update(model:where:set:to:includeSubclasses:)``.
    @discardableResult
    public func update<T: PersistentModel>(
        model: T.Type, where predicate: Predicate<T>? = nil, _ updates: PropertyUpdate<T>..., includeSubclasses: Bool = true
    ) throws -> Int {
        try update(model: model, where: predicate, setting: updates, includeSubclasses: includeSubclasses)
    }

    /// Sets the properties an array lists of every stored model of a type that satisfies a
    /// predicate, in one transaction, without loading the models, and saves the change: the
    /// form of ``update(model:where:_:includeSubclasses:)`` for updates assembled at run time.
    ///
    /// - Returns: How many models the update changed; 0, with nothing read, when `updates` is
    ///   empty.
    /// - Throws: The errors of ``update(model:where:set:to:includeSubclasses:)``.
    @discardableResult
    public func update<T: PersistentModel>(
        model: T.Type, where predicate: Predicate<T>? = nil, setting updates: [PropertyUpdate<T>], includeSubclasses: Bool = true
    ) throws -> Int {
        let base = try requireEntity(for: T.self)
        // Each property once, where it was first named, with the last value given for it.
        var assignments: [(property: Int, update: PropertyUpdate<T>)] = []
        for update in updates {
            guard let property = base.propertyIndex(for: update.keyPath), base.fields[property].attribute != nil else {
                throw SwiftDataError(.unsupportedKeyPath, reason: "update(model:where:set:to:) sets a stored attribute; \(update.keyPath) is not one of \(base.name) (a relationship, or a computed or @Transient property). Nothing was changed.")
            }
            guard !base.fields[property].isEphemeral else {
                throw SwiftDataError(.unsupportedKeyPath, reason: "\(base.name).\(base.fields[property].name) is ephemeral: the store does not keep its values, so update(model:where:set:to:) has nothing to change. Nothing was changed.")
            }
            if let earlier = assignments.firstIndex(where: { $0.property == property }) {
                assignments[earlier].update = update
            } else {
                assignments.append((property, update))
            }
        }
        guard !assignments.isEmpty else { return 0 }
        try throwDeferredReadFailure()
        let entities = includeSubclasses ? base.concreteEntities : [base]
        let slots = Set(entities.map { container.slot(forEntityNamed: $0.name) })
        for slot in slots where !container.stores[slot].configuration.allowsSave {
            throw SwiftDataError(.saveNotAllowed, reason: "\(base.name) is stored by configuration \(container.stores[slot].configuration.name), which has allowsSave: false")
        }
        // The updates the store can make itself, one per table; nil when the models must be set.
        var storeUpdates: [StoreBatchUpdate]? = []
        if slots.count == 1, let slot = slots.first, container.stores[slot].capabilities.appliesBatchUpdates {
            for entity in entities {
                let plan = self.plan(for: FetchDescriptor(predicate: predicate), entity: entity)
                // The entity's own index of each property (a subclass's list differs from its base's).
                let columns = assignments.compactMap { assignment -> StoreBatchUpdate.Assignment? in
                    guard let scalar = assignment.update.scalar, let index = entity.propertyIndex(for: assignment.update.keyPath),
                          Self.storesAsScalar(entity, property: index, scalar) else { return nil }
                    return StoreBatchUpdate.Assignment(property: index, value: scalar)
                }
                guard plan.isExact, columns.count == assignments.count else {
                    storeUpdates = nil
                    break
                }
                storeUpdates?.append(StoreBatchUpdate(entity: entity, filter: plan.filter, assignments: columns))
            }
        } else {
            storeUpdates = nil
        }
        // A context of its own makes the save, so that this one's pending changes stay pending;
        // this context then merges it as another context's save.
        let writer = ModelContext(container)
        writer.author = author
        writer.saving.recordsHistory = saving.recordsHistory
        let count: Int
        if let storeUpdates, let slot = slots.first {
            var changes = StoreChanges()
            changes.author = author
            changes.recordsHistory = saving.recordsHistory
            changes.origin = container.externalSaves.origin
            changes.batchUpdates = storeUpdates
            count = try writer.saveBatchUpdates(changes, inStoreAt: slot)
        } else {
            var models = try writer.fetch(FetchDescriptor<T>(predicate: predicate))
            if !includeSubclasses { models.removeAll { Swift.type(of: $0) != T.self } }
            for model in models {
                for assignment in assignments { assignment.update.apply(model) }
            }
            try writer.save()
            count = models.count
        }
        mergeChangesFromOtherContexts(lookingOutside: false)
        return count
    }

    /// Whether a property's column holds a value of the scalar's type as the scalar writes it: a
    /// stored attribute, not ephemeral, transformed or loaded apart, and part of no uniqueness
    /// constraint (a save checks those as it writes models).
    private static func storesAsScalar(_ entity: Schema.Entity, property: Int, _ scalar: any _PersistentScalar) -> Bool {
        let field = entity.fields[property]
        guard field.attribute != nil, !field.isEphemeral, !field.isTransformed, !field.isExternal,
              field.storage == type(of: scalar)._osdStorage else { return false }
        return !entity.uniquenessConstraints.contains { $0.contains(field.name) }
    }

    /// Writes updates by predicate to the store at `slot` and reports them as this context's
    /// save: to the other contexts of the container, to live results, and by `didSave`.
    /// Returns how many rows changed.
    private func saveBatchUpdates(_ changes: StoreChanges, inStoreAt slot: Int) throws -> Int {
        // With one store, the container follows its history (see `noteSavedTransaction`).
        let followsHistory = container.stores.count == 1
        let result = followsHistory
            ? try saveCountedInFlight(in: container) { try container.stores[slot].store.save(changes) }
            : try container.stores[slot].store.save(changes)
        var updatedIDs: [PersistentIdentifier] = []
        for (update, keys) in zip(changes.batchUpdates, result.batchUpdated) {
            let location = location(of: update.entity)
            updatedIDs.reserveCapacity(updatedIDs.count + keys.count)
            for key in keys { updatedIDs.append(PersistentIdentifier(location: location, key: .permanent(key))) }
        }
        merging.saveGeneration &+= 1
        announce(SavedChanges(insertedIdentifiers: [], updatedIdentifiers: updatedIDs, deletedIdentifiers: []), in: container)
        if followsHistory { noteSavedTransaction(result.historyTransaction, in: container) }
        return updatedIDs.count
    }
}
