extension ModelContext {
    /// Returns the sum of a property over the models that match a fetch descriptor.
    ///
    /// The result is the sum of the values that `fetch(descriptor)` would give: the predicate,
    /// `includePendingChanges`, `fetchLimit` and `fetchOffset` (with the sort that pages them)
    /// select the models, and unsaved changes count as they do in a fetch. Integers add exactly
    /// (the sum is returned whenever it fits in their type, whatever the partial sums); other
    /// numbers add with `+`, NaN and infinities as it gives them, in the order the rows are read:
    /// the fetch's, unless the store reads an index on the property instead, so a floating-point
    /// sum can differ from `reduce(0, +)` over a fetch in its last bits. When the context has no
    /// unsaved changes of the model and the store evaluates the whole descriptor (without a page),
    /// the store computes the sum or the values are read without making models.
    ///
    /// ```swift
    /// let spent = try context.sum(of: \Trip.cost, in: FetchDescriptor(predicate: #Predicate { $0.year == 2026 }))
    /// ```
    ///
    /// This method is an addition of OpenSwiftData; SwiftData has no aggregates.
    ///
    /// - Parameters:
    ///   - keyPath: The property to add up: any numeric type, `Decimal`, or a computed property of
    ///     such a type (which is read from models).
    ///   - descriptor: The models to add up; every model of the type when omitted.
    /// - Returns: The sum, or zero when no model matches.
    /// - Throws: ``SwiftDataError/arithmeticOverflow`` when the sum of integers does not fit in
    ///   their type, naming the model and property, where `+` would stop the process.
    public func sum<T: PersistentModel, Value: _PersistentScalar & AdditiveArithmetic>(
        of keyPath: KeyPath<T, Value>, in descriptor: FetchDescriptor<T> = FetchDescriptor<T>()
    ) throws -> Value {
        try total(of: keyPath, in: descriptor) { $0 }
    }

    /// Returns the sum of an optional property over the models that match a fetch descriptor,
    /// leaving out the models whose value is `nil`.
    ///
    /// See `sum(of:in:)`: the same, with `nil` values skipped as SQL's `SUM` skips `NULL`.
    public func sum<T: PersistentModel, Value: _PersistentScalar & AdditiveArithmetic>(
        of keyPath: KeyPath<T, Value?>, in descriptor: FetchDescriptor<T> = FetchDescriptor<T>()
    ) throws -> Value {
        try total(of: keyPath, in: descriptor) { $0 }
    }

    /// Returns the smallest value of a property among the models that match a fetch descriptor.
    ///
    /// The models are those `fetch(descriptor)` would give (see `sum(of:in:)`).
    /// A floating-point NaN is skipped, as `Double.minimum(_:_:)` skips it; the result is NaN
    /// only when every value is.
    ///
    /// This method is an addition of OpenSwiftData; SwiftData has no aggregates.
    ///
    /// - Returns: The smallest value, or `nil` when no model matches.
    public func minimum<T: PersistentModel, Value: _PersistentScalar & Comparable>(
        of keyPath: KeyPath<T, Value>, in descriptor: FetchDescriptor<T> = FetchDescriptor<T>()
    ) throws -> Value? {
        try extreme(of: keyPath, in: descriptor, smallest: true) { $0 }
    }

    /// Returns the smallest value of an optional property among the models that match a fetch
    /// descriptor, leaving out `nil` values.
    ///
    /// - Returns: The smallest value, or `nil` when no model matches or every value is `nil`.
    public func minimum<T: PersistentModel, Value: _PersistentScalar & Comparable>(
        of keyPath: KeyPath<T, Value?>, in descriptor: FetchDescriptor<T> = FetchDescriptor<T>()
    ) throws -> Value? {
        try extreme(of: keyPath, in: descriptor, smallest: true) { $0 }
    }

    /// Returns the largest value of a property among the models that match a fetch descriptor.
    ///
    /// The models are those `fetch(descriptor)` would give (see `sum(of:in:)`).
    /// A floating-point NaN is skipped, as `Double.maximum(_:_:)` skips it; the result is NaN
    /// only when every value is.
    ///
    /// This method is an addition of OpenSwiftData; SwiftData has no aggregates.
    ///
    /// - Returns: The largest value, or `nil` when no model matches.
    public func maximum<T: PersistentModel, Value: _PersistentScalar & Comparable>(
        of keyPath: KeyPath<T, Value>, in descriptor: FetchDescriptor<T> = FetchDescriptor<T>()
    ) throws -> Value? {
        try extreme(of: keyPath, in: descriptor, smallest: false) { $0 }
    }

    /// Returns the largest value of an optional property among the models that match a fetch
    /// descriptor, leaving out `nil` values.
    ///
    /// - Returns: The largest value, or `nil` when no model matches or every value is `nil`.
    public func maximum<T: PersistentModel, Value: _PersistentScalar & Comparable>(
        of keyPath: KeyPath<T, Value?>, in descriptor: FetchDescriptor<T> = FetchDescriptor<T>()
    ) throws -> Value? {
        try extreme(of: keyPath, in: descriptor, smallest: false) { $0 }
    }

    /// The sum of the values of `keyPath` that `unwrap` gives (leaving out `nil`s).
    private func total<T: PersistentModel, Stored: _PersistentScalar, Value: _PersistentScalar & AdditiveArithmetic>(
        of keyPath: KeyPath<T, Stored>, in descriptor: FetchDescriptor<T>, _ unwrap: (Stored) -> Value?
    ) throws -> Value {
        var sum = AggregateSum<Value>()
        try forEachValue(of: keyPath, in: descriptor, storeAggregate: sum.storeAggregate) { value in
            if let value = unwrap(value) { sum.add(value) }
        } storeResult: {
            try sum.addStoreResult($0)
        }
        return try sum.result(of: propertyName(of: keyPath))
    }

    /// The smallest or largest of the values of `keyPath` that `unwrap` gives (leaving out `nil`s).
    private func extreme<T: PersistentModel, Stored: _PersistentScalar, Value: _PersistentScalar & Comparable>(
        of keyPath: KeyPath<T, Stored>, in descriptor: FetchDescriptor<T>, smallest: Bool, _ unwrap: (Stored) -> Value?
    ) throws -> Value? {
        var extreme = AggregateExtreme<Value>(keepsSmallest: smallest)
        try forEachValue(of: keyPath, in: descriptor, storeAggregate: smallest ? .minimum : .maximum) { value in
            if let value = unwrap(value) { extreme.consider(value) }
        } storeResult: { row in
            if !row._isNull(0) { extreme.consider(try Value._osdRead(from: row, 0)) }
        }
        return extreme.value
    }

    /// `Model.property` for a stored property, or the key path's description.
    func propertyName<T: PersistentModel>(of keyPath: PartialKeyPath<T>) -> String {
        guard let entity = entity(for: T.self), let index = entity.propertyIndex(for: keyPath) else { return "\(keyPath)" }
        return "\(entity.name).\(entity.fields[index].name)"
    }

    /// Calls `body` with the value of `keyPath` of each model `fetch(descriptor)` returns, in its
    /// order. When that gives the same values (the store evaluates the whole descriptor, which has
    /// no page, the context has no unsaved change of the model, and the key path is a stored
    /// attribute of exactly this type), the store computes the aggregate itself where it can (see
    /// ``storeGives(_:over:as:sorted:)``), and `storeResult` gets its row instead; or else the column is
    /// read without making models (always, when `storeAggregate` is `nil`).
    func forEachValue<T: PersistentModel, Value: _PersistentScalar>(
        of keyPath: KeyPath<T, Value>, in descriptor: FetchDescriptor<T>, storeAggregate: StoreAggregate?,
        _ body: (Value) throws -> Void, storeResult: (StoreRow) throws -> Void = { _ in }
    ) throws {
        let (query, storeSelectsTheRows) = try aggregateQuery(descriptor)
        guard storeSelectsTheRows, let property = query.entity.propertyIndex(for: keyPath), query.shape.eagerAttributes.contains(property),
              Self.readsAsStored(query.entity.fields[property], as: Value.self) else {
            for model in try fetch(descriptor) { try body(model[keyPath: keyPath]) }
            return
        }
        do {
            if let storeAggregate,
               Self.storeGives(storeAggregate, over: query.entity.fields[property], as: Value.self, sorted: !query.storeFetch.sort.isEmpty),
               try query.aggregatingStore?.aggregate(storeAggregate, of: property, in: query.storeFetch, storeResult) == true {
                return
            }
            try query.store.forEachRow(query.storeFetch, attributes: [property]) { row in
                try body(Value._osdRead(from: row, 1))
            }
        } catch let error where !(error is SwiftDataError) {
            throw Self.unreadableValue(error, of: query.entity, property: property)
        }
    }

    /// Readies an aggregate of the models `fetch(descriptor)` returns: merges other contexts'
    /// saves, throws a failure kept from an earlier read, and applies the deletions the fetch
    /// counts. Returns the query, and whether the store selects exactly those models' rows in one
    /// statement (it evaluates the whole descriptor, which has no page, and the context has no
    /// unsaved change of the model).
    func aggregateQuery<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> (query: FetchQuery, storeSelectsTheRows: Bool) {
        mergeChangesFromOtherContexts()
        try throwDeferredReadFailure()
        if descriptor.includePendingChanges { propagatePendingDeletions() }
        let query = try FetchQuery(descriptor, context: self)
        // A page's rows are those `fetch` reads: where its sort leaves ties (or it has none), another
        // statement (one column, an aggregate) could take other rows, so a page is fetched.
        let storeSelectsTheRows = query.isResolvedInStore && descriptor.fetchLimit == nil && descriptor.fetchOffset == nil
            && !FetchQuery.hasPendingChanges(self, entity: query.entity)
        return (query, storeSelectsTheRows)
    }

    /// The error for a stored value of a property that its type cannot read (another program
    /// wrote it), naming the model and property as a fetch does.
    static func unreadableValue(_ error: any Error, of entity: Schema.Entity, property: Int) -> SwiftDataError {
        SwiftDataError(.modelValidationFailure, reason: "Reading \(entity.name).\(entity.fields[property].name): \(error)")
    }

    /// Whether a store's `aggregate` over `field`, in a fetch that is sorted or not, gives what
    /// taking every model's value as `Value` gives: the model reads the column as stored, the store
    /// computes the aggregate for the type, and its result does not depend on an order a sort
    /// would change (a store's aggregate takes the rows in the order it scans them; a sorted fetch
    /// gives them in its sort, which decides a floating-point sum and which of equal values, text
    /// or zeros of both signs, an extreme keeps).
    static func storeGives<Value: _PersistentScalar>(_ aggregate: StoreAggregate, over field: Schema.Entity.Field, as type: Value.Type, sorted: Bool) -> Bool {
        readsAsStored(field, as: Value.self) && storeComputes(aggregate, of: Value.self) && (!sorted || !dependsOnOrder(aggregate, of: Value.self))
    }

    /// Whether a store's aggregate gives what combining every value would: sums of integers no
    /// wider than 64 bits (a store's sum is exact, and the sum checks that it fits the type) and
    /// of `Double`s (added as Swift adds them), and the extremes of integers, dates, `Double`s,
    /// `String`s and `Decimal`s (a store computes those it orders as Swift does and leaves the
    /// others to the context: `StoreBackend.aggregate` returns `false`).
    private static func storeComputes<Value: _PersistentScalar>(_ aggregate: StoreAggregate, of type: Value.Type) -> Bool {
        switch aggregate {
        case .sum, .sumAndCount: Value._osdStorage == .integer
        case .floatingPointSum, .floatingPointSumAndCount: Value.self == Double.self || Value.self == Double?.self
        case .minimum, .maximum:
            [.integer, .unsignedInteger, .date, .decimal].contains(Value._osdStorage)
                || [Double.self, Double?.self, String.self, String?.self].contains { $0 == Value.self }
        }
    }

    /// Whether the aggregate's result depends on the order of the values: a floating-point sum
    /// (rounding), and an extreme of values that can be equal without being the same (`Double`
    /// zeros, text).
    private static func dependsOnOrder<Value: _PersistentScalar>(_ aggregate: StoreAggregate, of type: Value.Type) -> Bool {
        switch aggregate.withoutCount {
        case .floatingPointSum: true
        case .minimum, .maximum: [.real, .text].contains(Value._osdStorage)
        default: false
        }
    }

    /// Whether a model reads the stored value of `field` as `Value` reads it from its column: a
    /// plain attribute declared with exactly that type (an optional one included), neither
    /// ephemeral nor transformed.
    private static func readsAsStored<Value: _PersistentScalar>(_ field: Schema.Entity.Field, as type: Value.Type) -> Bool {
        guard let attribute = field.attribute, !field.isEphemeral, !field.isTransformed, field.storage == Value._osdStorage else { return false }
        return ObjectIdentifier(attribute.valueType) == ObjectIdentifier(Value.self)
    }
}
