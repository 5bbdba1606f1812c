extension ModelContext {
    /// The plan of a fetch descriptor for one entity, narrowed to what the entity's store evaluates.
    ///
    /// A filter the store declines is dropped conjunct by conjunct: what remains of a conjunction
    /// selects a superset of the matching rows, and the predicate finishes the job in Swift. A sort
    /// the store declines runs in Swift. Results are always those of `predicate.evaluate`.
    func plan<T: PersistentModel>(for descriptor: FetchDescriptor<T>, entity: Schema.Entity) -> QueryPlan {
        var plan = PredicateTranslator.plan(for: descriptor, entity: entity, schema: container.schema)
        let store = container.store(for: entity)
        if let filter = plan.filter, !store.canEvaluate(filter) {
            plan.filter = Self.narrowed(filter, to: store)
            plan.isExact = false
        }
        if !plan.sort.isEmpty, !store.canSort(by: plan.sort) {
            plan.sort = []
            plan.sortIsExact = false
        }
        return plan
    }

    /// The part of a filter the store evaluates: the whole filter, the evaluable conjuncts of a
    /// conjunction, or `nil` (every row).
    private static func narrowed(_ filter: QueryExpression, to store: any StoreBackend) -> QueryExpression? {
        if store.canEvaluate(filter) { return filter }
        guard case .and(let lhs, let rhs) = filter else { return nil }
        switch (narrowed(lhs, to: store), narrowed(rhs, to: store)) {
        case (let left?, let right?): return .and(left, right)
        case (let left?, nil): return left
        case (nil, let right?): return right
        case (nil, nil): return nil
        }
    }
}
