import Foundation

/// An aggregate of one property of a model, which a context computes together with others over
/// the models a fetch descriptor selects.
///
/// Create aggregates with the type's static methods, and pass them to
/// `ModelContext.aggregates(_:in:)`, which returns their results in the same order:
///
/// ```swift
/// let (spent, nights, longest) = try context.aggregates(
///     .sum(\Trip.cost), .sum(\Trip.nights), .maximum(\Trip.nights), in: descriptor)
/// ```
///
/// Each aggregate's result is the one its own method gives (`sum(of:in:)`, `average(of:in:)`,
/// `minimum(of:in:)`, `maximum(of:in:)`) over the same descriptor.
///
/// This type is an addition of OpenSwiftData; SwiftData has no aggregates.
public struct ModelAggregate<Model: PersistentModel, Value> {
    /// The aggregate computed alone, by its own method of the context.
    let alone: (ModelContext, FetchDescriptor<Model>) throws -> Value
    /// Starts the aggregate's pass: its running state, and how to read its result at the end.
    let start: () -> (pass: AggregatePass<Model>, result: (ModelContext) throws -> Value)
}

extension ModelAggregate {
    /// The sum of a property, as `ModelContext.sum(of:in:)` gives it: integers add exactly, and a sum
    /// that does not fit in their type throws ``SwiftDataError/arithmeticOverflow``.
    public static func sum<Number: _PersistentScalar & AdditiveArithmetic>(
        _ keyPath: KeyPath<Model, Number>
    ) -> ModelAggregate<Model, Number> {
        summing(keyPath, { $0 }, counting: false, alone: { try $0.sum(of: keyPath, in: $1) }) { sum, _, property in try sum.result(of: property) }
    }

    /// The sum of an optional property, leaving out `nil` values: zero when every value is `nil`.
    public static func sum<Number: _PersistentScalar & AdditiveArithmetic>(
        _ keyPath: KeyPath<Model, Number?>
    ) -> ModelAggregate<Model, Number> {
        summing(keyPath, { $0 }, counting: false, alone: { try $0.sum(of: keyPath, in: $1) }) { sum, _, property in try sum.result(of: property) }
    }

    /// The average of an integer property, as `ModelContext.average(of:in:)` gives it: the exact
    /// sum divided by the number of values, or `nil` when there is none.
    public static func average<Integer: _PersistentScalar & BinaryInteger>(
        _ keyPath: KeyPath<Model, Integer>
    ) -> ModelAggregate<Model, Double?> {
        summing(keyPath, { $0 }, counting: true, alone: { try $0.average(of: keyPath, in: $1) }) { sum, count, _ in
            count == 0 ? nil : sum.integerTotal / Double(count)
        }
    }

    /// The average of an optional integer property, leaving out `nil` values.
    public static func average<Integer: _PersistentScalar & BinaryInteger>(
        _ keyPath: KeyPath<Model, Integer?>
    ) -> ModelAggregate<Model, Double?> {
        summing(keyPath, { $0 }, counting: true, alone: { try $0.average(of: keyPath, in: $1) }) { sum, count, _ in
            count == 0 ? nil : sum.integerTotal / Double(count)
        }
    }

    /// The average of a floating-point property: the sum of its values, in the order they are
    /// read, divided by their number; `nil` when there is none.
    public static func average<Number: _PersistentScalar & BinaryFloatingPoint>(
        _ keyPath: KeyPath<Model, Number>
    ) -> ModelAggregate<Model, Number?> {
        summing(keyPath, { $0 }, counting: true, alone: { try $0.average(of: keyPath, in: $1) }) { sum, count, property in
            count == 0 ? nil : try sum.result(of: property) / Number(count)
        }
    }

    /// The average of an optional floating-point property, leaving out `nil` values.
    public static func average<Number: _PersistentScalar & BinaryFloatingPoint>(
        _ keyPath: KeyPath<Model, Number?>
    ) -> ModelAggregate<Model, Number?> {
        summing(keyPath, { $0 }, counting: true, alone: { try $0.average(of: keyPath, in: $1) }) { sum, count, property in
            count == 0 ? nil : try sum.result(of: property) / Number(count)
        }
    }

    /// The average of a `Decimal` property; `nil` when there is no value.
    public static func average(_ keyPath: KeyPath<Model, Decimal>) -> ModelAggregate<Model, Decimal?> {
        summing(keyPath, { $0 }, counting: true, alone: { try $0.average(of: keyPath, in: $1) }) { sum, count, property in
            count == 0 ? nil : try sum.result(of: property) / Decimal(count)
        }
    }

    /// The average of an optional `Decimal` property, leaving out `nil` values.
    public static func average(_ keyPath: KeyPath<Model, Decimal?>) -> ModelAggregate<Model, Decimal?> {
        summing(keyPath, { $0 }, counting: true, alone: { try $0.average(of: keyPath, in: $1) }) { sum, count, property in
            count == 0 ? nil : try sum.result(of: property) / Decimal(count)
        }
    }

    /// The smallest value of a property, as `ModelContext.minimum(of:in:)` gives it; `nil` when no
    /// model matches.
    public static func minimum<Element: _PersistentScalar & Comparable>(
        _ keyPath: KeyPath<Model, Element>
    ) -> ModelAggregate<Model, Element?> {
        extreme(keyPath, { $0 }, smallest: true, alone: { try $0.minimum(of: keyPath, in: $1) })
    }

    /// The smallest value of an optional property, leaving out `nil` values.
    public static func minimum<Element: _PersistentScalar & Comparable>(
        _ keyPath: KeyPath<Model, Element?>
    ) -> ModelAggregate<Model, Element?> {
        extreme(keyPath, { $0 }, smallest: true, alone: { try $0.minimum(of: keyPath, in: $1) })
    }

    /// The largest value of a property, as `ModelContext.maximum(of:in:)` gives it; `nil` when no
    /// model matches.
    public static func maximum<Element: _PersistentScalar & Comparable>(
        _ keyPath: KeyPath<Model, Element>
    ) -> ModelAggregate<Model, Element?> {
        extreme(keyPath, { $0 }, smallest: false, alone: { try $0.maximum(of: keyPath, in: $1) })
    }

    /// The largest value of an optional property, leaving out `nil` values.
    public static func maximum<Element: _PersistentScalar & Comparable>(
        _ keyPath: KeyPath<Model, Element?>
    ) -> ModelAggregate<Model, Element?> {
        extreme(keyPath, { $0 }, smallest: false, alone: { try $0.maximum(of: keyPath, in: $1) })
    }

    /// An aggregate built on a running sum of the values `unwrap` gives (leaving out `nil`s) and,
    /// when `counting`, their number; `finish` turns the sum and the number into the result, given
    /// the property's name for an error.
    private static func summing<Stored: _PersistentScalar, Number: _PersistentScalar & AdditiveArithmetic, Result>(
        _ keyPath: KeyPath<Model, Stored>, _ unwrap: @escaping (Stored) -> Number?, counting: Bool,
        alone: @escaping (ModelContext, FetchDescriptor<Model>) throws -> Result,
        finish: @escaping (AggregateSum<Number>, _ count: Int, _ property: String) throws -> Result
    ) -> ModelAggregate<Model, Result> {
        ModelAggregate<Model, Result>(alone: alone) {
            var sum = AggregateSum<Number>()
            var count = 0
            let pass = AggregatePass<Model>(keyPath: keyPath, storedType: Stored.self, storeAggregate: counting ? sum.storeAggregate.withCount : sum.storeAggregate) { value in
                guard let value = unwrap(value) else { return }
                sum.add(value)
                count += 1
            } addStoreResult: { row, column in
                try sum.addStoreResult(row, at: column)
                if counting { count += Int(row._int64(column + 1)) }
            }
            return (pass, { context in try finish(sum, count, context.propertyName(of: keyPath)) })
        }
    }

    /// The smallest or largest of the values `unwrap` gives (leaving out `nil`s).
    private static func extreme<Stored: _PersistentScalar, Element: _PersistentScalar & Comparable>(
        _ keyPath: KeyPath<Model, Stored>, _ unwrap: @escaping (Stored) -> Element?, smallest: Bool,
        alone: @escaping (ModelContext, FetchDescriptor<Model>) throws -> Element?
    ) -> ModelAggregate<Model, Element?> {
        ModelAggregate<Model, Element?>(alone: alone) {
            var extreme = AggregateExtreme<Element>(keepsSmallest: smallest)
            let pass = AggregatePass<Model>(keyPath: keyPath, storedType: Stored.self, storeAggregate: smallest ? .minimum : .maximum) { value in
                if let value = unwrap(value) { extreme.consider(value) }
            } addStoreResult: { row, column in
                if !row._isNull(column) { extreme.consider(try Element._osdRead(from: row, column)) }
            }
            return (pass, { _ in extreme.value })
        }
    }
}

/// One aggregate's part of a pass of `ModelContext.aggregates(_:in:)`: the property it reduces,
/// and how it takes that property's value from a model or its result from a store.
final class AggregatePass<Model: PersistentModel> {
    /// The property the aggregate reduces.
    let keyPath: PartialKeyPath<Model>
    /// What a store computes for the aggregate.
    let storeAggregate: StoreAggregate
    /// Takes the property's value of a model.
    let addModel: (Model) -> Void
    /// Takes the store's result, from a row's column on (see `AggregatingStore.aggregate`).
    let addStoreResult: (StoreRow, Int32) throws -> Void
    /// Whether a store's result over a field, of a fetch that is sorted or not, is what taking
    /// every model's value gives.
    let storeComputes: (_ field: Schema.Entity.Field, _ sorted: Bool) -> Bool

    init<Stored: _PersistentScalar>(
        keyPath: KeyPath<Model, Stored>, storedType: Stored.Type, storeAggregate: StoreAggregate,
        add: @escaping (Stored) -> Void, addStoreResult: @escaping (StoreRow, Int32) throws -> Void
    ) {
        self.keyPath = keyPath
        self.storeAggregate = storeAggregate
        addModel = { add($0[keyPath: keyPath]) }
        self.addStoreResult = addStoreResult
        storeComputes = { ModelContext.storeGives(storeAggregate, over: $0, as: Stored.self, sorted: $1) }
    }
}
