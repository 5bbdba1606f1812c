import Foundation

extension ModelContext {
    /// Returns the average of an integer property over the models that match a fetch descriptor.
    ///
    /// The models are those `fetch(descriptor)` would give (see `sum(of:in:)`). The integers add
    /// exactly, whatever their sum, and the average is that sum divided by their number, as a
    /// `Double`.
    ///
    /// ```swift
    /// let typical = try context.average(of: \Trip.rating)
    /// ```
    ///
    /// This method is an addition of OpenSwiftData; SwiftData has no aggregates.
    ///
    /// - Returns: The average, or `nil` when no model matches.
    public func average<T: PersistentModel, Value: _PersistentScalar & BinaryInteger>(
        of keyPath: KeyPath<T, Value>, in descriptor: FetchDescriptor<T> = FetchDescriptor<T>()
    ) throws -> Double? {
        try integerAverage(of: keyPath, in: descriptor) { $0 }
    }

    /// Returns the average of an optional integer property over the models that match a fetch
    /// descriptor, leaving out `nil` values (as SQL's `AVG` leaves out `NULL`).
    ///
    /// - Returns: The average, or `nil` when no model matches or every value is `nil`.
    public func average<T: PersistentModel, Value: _PersistentScalar & BinaryInteger>(
        of keyPath: KeyPath<T, Value?>, in descriptor: FetchDescriptor<T> = FetchDescriptor<T>()
    ) throws -> Double? {
        try integerAverage(of: keyPath, in: descriptor) { $0 }
    }

    /// Returns the average of a floating-point property over the models that match a fetch
    /// descriptor: their sum as `sum(of:in:)` adds it, divided by their number.
    ///
    /// - Returns: The average, or `nil` when no model matches.
    public func average<T: PersistentModel, Value: _PersistentScalar & BinaryFloatingPoint>(
        of keyPath: KeyPath<T, Value>, in descriptor: FetchDescriptor<T> = FetchDescriptor<T>()
    ) throws -> Value? {
        try quotientAverage(of: keyPath, in: descriptor, { $0 }) { $0 / Value($1) }
    }

    /// Returns the average of an optional floating-point property over the models that match a
    /// fetch descriptor, leaving out `nil` values.
    ///
    /// - Returns: The average, or `nil` when no model matches or every value is `nil`.
    public func average<T: PersistentModel, Value: _PersistentScalar & BinaryFloatingPoint>(
        of keyPath: KeyPath<T, Value?>, in descriptor: FetchDescriptor<T> = FetchDescriptor<T>()
    ) throws -> Value? {
        try quotientAverage(of: keyPath, in: descriptor, { $0 }) { $0 / Value($1) }
    }

    /// Returns the average of a `Decimal` property over the models that match a fetch descriptor.
    ///
    /// - Returns: The average, or `nil` when no model matches.
    public func average<T: PersistentModel>(
        of keyPath: KeyPath<T, Decimal>, in descriptor: FetchDescriptor<T> = FetchDescriptor<T>()
    ) throws -> Decimal? {
        try quotientAverage(of: keyPath, in: descriptor, { $0 }) { $0 / Decimal($1) }
    }

    /// Returns the average of an optional `Decimal` property over the models that match a fetch
    /// descriptor, leaving out `nil` values.
    ///
    /// - Returns: The average, or `nil` when no model matches or every value is `nil`.
    public func average<T: PersistentModel>(
        of keyPath: KeyPath<T, Decimal?>, in descriptor: FetchDescriptor<T> = FetchDescriptor<T>()
    ) throws -> Decimal? {
        try quotientAverage(of: keyPath, in: descriptor, { $0 }) { $0 / Decimal($1) }
    }

    /// The exact sum of the integers `unwrap` gives, divided by their number.
    private func integerAverage<T: PersistentModel, Stored: _PersistentScalar, Value: _PersistentScalar & BinaryInteger>(
        of keyPath: KeyPath<T, Stored>, in descriptor: FetchDescriptor<T>, _ unwrap: (Stored) -> Value?
    ) throws -> Double? {
        let (sum, count) = try runningSum(of: keyPath, in: descriptor, unwrap)
        return count == 0 ? nil : sum.integerTotal / Double(count)
    }

    /// The sum of the values `unwrap` gives, in the order they are read, divided by their number.
    private func quotientAverage<T: PersistentModel, Stored: _PersistentScalar, Value: _PersistentScalar & AdditiveArithmetic>(
        of keyPath: KeyPath<T, Stored>, in descriptor: FetchDescriptor<T>, _ unwrap: (Stored) -> Value?,
        dividing divide: (Value, Int) -> Value
    ) throws -> Value? {
        let (sum, count) = try runningSum(of: keyPath, in: descriptor, unwrap)
        return count == 0 ? nil : divide(try sum.result(of: propertyName(of: keyPath)), count)
    }

    /// The running sum of the values `unwrap` gives (leaving out `nil`s), and their number: the
    /// store's sum and count when it computes them (see `sum(of:in:)`).
    private func runningSum<T: PersistentModel, Stored: _PersistentScalar, Value: _PersistentScalar & AdditiveArithmetic>(
        of keyPath: KeyPath<T, Stored>, in descriptor: FetchDescriptor<T>, _ unwrap: (Stored) -> Value?
    ) throws -> (sum: AggregateSum<Value>, count: Int) {
        var sum = AggregateSum<Value>()
        var count = 0
        try forEachValue(of: keyPath, in: descriptor, storeAggregate: sum.storeAggregate.withCount) { value in
            guard let value = unwrap(value) else { return }
            sum.add(value)
            count += 1
        } storeResult: { row in
            try sum.addStoreResult(row)
            count += Int(row._int64(1))
        }
        return (sum, count)
    }
}
