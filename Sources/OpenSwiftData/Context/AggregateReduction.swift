/// How ``ModelContext/sum(of:in:)-(KeyPath<T,Value>,_)`` adds: integers report an overflow as
/// ``SwiftDataError/arithmeticOverflow`` instead of stopping the process as `+` does; other types
/// (floating point, `Decimal`, whose overflow is infinity or NaN) add with `+`.
struct AggregateAddition<Value: AdditiveArithmetic> {
    /// Adds two integers, or returns `nil` on overflow; `nil` for a type that is no integer.
    private let checkedAdd: ((Value, Value) -> Value?)?
    /// The model and property added up, for the error.
    private let property: String

    init(of property: String) {
        self.property = property
        checkedAdd = (Value.self as? any FixedWidthInteger.Type).map { Self.checkedAddition(as: $0) }
    }

    /// Adds `value` to `total`.
    func add(_ value: Value, to total: Value) throws -> Value {
        guard let checkedAdd else { return total + value }
        guard let sum = checkedAdd(total, value) else {
            throw SwiftDataError(.arithmeticOverflow, reason: "The sum of \(property) does not fit in \(Value.self) (adding \(value) to \(total)); add the values as a wider type")
        }
        return sum
    }

    /// An overflow-checked addition of `Integer`, which is `Value` (the caller checked).
    private static func checkedAddition<Integer: FixedWidthInteger>(as integer: Integer.Type) -> (Value, Value) -> Value? {
        { total, value in
            let (sum, overflow) = unsafeBitCast(total, to: Integer.self).addingReportingOverflow(unsafeBitCast(value, to: Integer.self))
            return overflow ? nil : unsafeBitCast(sum, to: Value.self)
        }
    }
}

/// The smallest or largest of the values it is shown. A value unordered with itself (a
/// floating-point NaN) is kept only until an ordered one comes, as `Double.minimum(_:_:)` does;
/// of equal values, the first stays.
struct AggregateExtreme<Value: Comparable> {
    /// The extreme so far, or `nil` before the first value.
    private(set) var value: Value?
    /// Whether the smallest value is kept, rather than the largest.
    let keepsSmallest: Bool

    init(keepsSmallest: Bool) { self.keepsSmallest = keepsSmallest }

    mutating func consider(_ candidate: Value) {
        guard let current = value else {
            value = candidate
            return
        }
        if candidate != candidate { return }
        if current != current || (keepsSmallest ? candidate < current : current < candidate) { value = candidate }
    }
}
