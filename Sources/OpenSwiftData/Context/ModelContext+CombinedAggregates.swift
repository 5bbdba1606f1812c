extension ModelContext {
    /// Returns several aggregates of the models that match a fetch descriptor, computed together.
    ///
    /// Each result is the one the aggregate's own method gives over the same descriptor
    /// (`sum(of:in:)`, `average(of:in:)`, `minimum(of:in:)`, `maximum(of:in:)`): the predicate,
    /// `includePendingChanges`, `fetchLimit` and `fetchOffset` select the models, and unsaved changes
    /// count as they do in a fetch. Where those methods each ask the store or read the models, this
    /// one asks the store for every aggregate in one statement when the store evaluates the whole
    /// descriptor (without a page), the context has no unsaved changes of the model and the store
    /// computes each aggregate; it reads the models `fetch` returns once when the store cannot
    /// evaluate the descriptor; otherwise it computes each aggregate as its own method does.
    ///
    /// ```swift
    /// let (spent, rating, latest) = try context.aggregates(
    ///     .sum(\Trip.cost), .average(\Trip.rating), .maximum(\Trip.startDate),
    ///     in: FetchDescriptor(predicate: #Predicate { $0.year == 2026 }))
    /// ```
    ///
    /// Name the model's type in one key path (`\Trip.cost`) when no descriptor names it; the others
    /// may leave it out.
    /// Spell it in a key path through an optional, too (`.minimum(\Trip.destination?.name)`):
    /// Swift 6.3 fails to type-check `\.destination?.name` in this call.
    ///
    /// This method is an addition of OpenSwiftData; SwiftData has no aggregates.
    ///
    /// - Parameters:
    ///   - aggregate: The aggregates to compute (see ``ModelAggregate``).
    ///   - descriptor: The models to aggregate; every model of the type when omitted.
    /// - Returns: The aggregates' results, in the order of `aggregate`.
    /// - Throws: ``SwiftDataError/arithmeticOverflow`` when a sum of integers does not fit in their
    ///   type, naming the model and property, and the errors a fetch throws.
    public func aggregates<T: PersistentModel, each Value>(
        _ aggregate: repeat ModelAggregate<T, each Value>, in descriptor: FetchDescriptor<T> = FetchDescriptor<T>()
    ) throws -> (repeat each Value) {
        var count = 0
        for _ in repeat each aggregate { count += 1 }
        if count > 1 {
            let started = (repeat (each aggregate).start())
            var passes: [AggregatePass<T>] = []
            for start in repeat each started { passes.append(start.pass) }
            if try computeTogether(passes, over: descriptor) { return (repeat try (each started).result(self)) }
        }
        return (repeat try (each aggregate).alone(self, descriptor))
    }

    /// Shows every pass the models `fetch(descriptor)` returns, or the store's results of all of
    /// their aggregates at once, when either gives each what its own method would. Returns `false`,
    /// having shown nothing, when each aggregate is to be computed by its own method: the store
    /// evaluates the descriptor, but does not compute every one of the aggregates.
    private func computeTogether<T: PersistentModel>(_ passes: [AggregatePass<T>], over descriptor: FetchDescriptor<T>) throws -> Bool {
        let (query, storeSelectsTheRows) = try aggregateQuery(descriptor)
        let entity = query.entity
        guard storeSelectsTheRows else {
            for model in try fetch(descriptor) {
                for pass in passes { pass.addModel(model) }
            }
            return true
        }
        let sorted = !query.storeFetch.sort.isEmpty
        var requests: [AggregateRequest] = []
        for pass in passes {
            guard let property = entity.propertyIndex(for: pass.keyPath), query.shape.eagerAttributes.contains(property),
                  pass.storeComputes(entity.fields[property], sorted) else { return false }
            requests.append(AggregateRequest(pass.storeAggregate, of: property))
        }
        guard let store = query.aggregatingStore else { return false }
        return try store.aggregates(requests, in: query.storeFetch) { row, columns in
            for (pass, (column, request)) in zip(passes, zip(columns, requests)) {
                do {
                    try pass.addStoreResult(row, column)
                } catch let error where !(error is SwiftDataError) {
                    throw Self.unreadableValue(error, of: entity, property: request.attribute)
                }
            }
        }
    }
}
