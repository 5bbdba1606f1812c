/// The running sum of `ModelContext.sum(of:in:)`. Integers add exactly:
/// the result is the true sum whenever it fits in their type, whatever the order and the partial
/// sums, and a sum that does not fit is ``SwiftDataError/arithmeticOverflow`` instead of the trap
/// of `+`. Other types (floating point, `Decimal`, whose overflow is infinity or NaN) add with `+`,
/// in the order the values come.
struct AggregateSum<Value: AdditiveArithmetic & _PersistentScalar> {
    /// The sum of values that are no integers.
    private var total = Value.zero
    /// How integers of the type widen to 64 bits and back, or `nil` for other types.
    private let integers: IntegerWidening<Value>?
    /// The integers' sum modulo 2⁶⁴ (a bit pattern, unsigned for unsigned types).
    private var wrapped: Int64 = 0
    /// How many times 2⁶⁴ the true sum differs from `wrapped`.
    private var carries = 0

    init() {
        integers = (Value.self as? any FixedWidthInteger.Type).map { IntegerWidening<Value>($0) }
    }

    /// Adds `value`.
    mutating func add(_ value: Value) {
        guard let integers else {
            total = total + value
            return
        }
        let wide = integers.widen(value)
        if integers.isSigned {
            let (sum, overflow) = wrapped.addingReportingOverflow(wide)
            if overflow { carries += wide > 0 ? 1 : -1 }
            wrapped = sum
        } else {
            let (sum, overflow) = UInt64(bitPattern: wrapped).addingReportingOverflow(UInt64(bitPattern: wide))
            if overflow { carries += 1 }
            wrapped = Int64(bitPattern: sum)
        }
    }

    /// The aggregate a store computes for this sum: ``StoreAggregate/sum`` for integers,
    /// ``StoreAggregate/floatingPointSum`` for other types (which a store computes for `Double`
    /// only).
    var storeAggregate: StoreAggregate { integers == nil ? .floatingPointSum : .sum }

    /// Adds the store's sum of the values, in `column` of `row` (NULL when it had none): for
    /// integers the exact total as 64 bits, otherwise a value of the type.
    mutating func addStoreResult(_ row: StoreRow, at column: Int32 = 0) throws {
        guard !row._isNull(column) else { return }
        guard integers != nil else {
            add(try Value._osdRead(from: row, column))
            return
        }
        let total = row._int64(column)
        let (sum, overflow) = wrapped.addingReportingOverflow(total)
        if overflow { carries += total > 0 ? 1 : -1 }
        wrapped = sum
    }

    /// The exact sum of integers, whether or not it fits in their type, rounded to a `Double`
    /// (for an average); 0 for other types.
    var integerTotal: Double {
        guard let integers else { return 0 }
        let low = integers.isSigned ? Double(wrapped) : Double(UInt64(bitPattern: wrapped))
        return Double(carries) * 18_446_744_073_709_551_616 + low
    }

    /// The sum; for integers, an error naming `property` when it does not fit in their type.
    func result(of property: String) throws -> Value {
        guard let integers else { return total }
        guard carries == 0, let sum = integers.narrow(wrapped) else {
            throw SwiftDataError(.arithmeticOverflow, reason: "The sum of \(property) does not fit in \(Value.self); add the values as a wider type")
        }
        return sum
    }
}

/// Conversions between an integer type (`Value`, checked by the caller) and 64 bits: sign
/// extension for signed types, the bit pattern of a `UInt64` for unsigned ones.
private struct IntegerWidening<Value> {
    let isSigned: Bool
    let widen: (Value) -> Int64
    /// The value of the 64 bits, when `Value` can hold it.
    let narrow: (Int64) -> Value?

    init<Integer: FixedWidthInteger>(_ integer: Integer.Type) {
        isSigned = Integer.isSigned
        if Integer.isSigned {
            widen = { Int64(truncatingIfNeeded: unsafeBitCast($0, to: Integer.self)) }
            narrow = { Integer(exactly: $0).map { unsafeBitCast($0, to: Value.self) } }
        } else {
            widen = { Int64(bitPattern: UInt64(truncatingIfNeeded: unsafeBitCast($0, to: Integer.self))) }
            narrow = { Integer(exactly: UInt64(bitPattern: $0)).map { unsafeBitCast($0, to: Value.self) } }
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
