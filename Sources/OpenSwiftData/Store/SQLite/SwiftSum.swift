import CSQLite

/// `osd_sum_real(x)`: the sum of a `Double` column as Swift's `+` adds it, one row after another
/// in the order SQLite visits them. SQLite's own `sum` compensates (from 3.43), reads the 8-byte
/// NaN OpenSwiftData stores as a BLOB as no number, and gives NULL for a NaN; this one reads the
/// column as ``SQLiteStatement/_double(_:)`` does and adds exactly as a reduction in Swift would.
/// A value that is no number (text another program wrote) fails the statement, and the store
/// then reads the values itself, to throw the error that names the model and property.
enum SwiftSum {
    static let functionName = "osd_sum_real"

    static func register(on db: OpaquePointer) {
        sqlite3_create_function_v2(db, functionName, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                   nil, nil, stepCallback, finalCallback, nil)
    }
}

/// Adds one row's value to the running sum kept in the aggregate's context.
private let stepCallback: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
    guard let value = arguments?[0], let memory = sqlite3_aggregate_context(context, Int32(MemoryLayout<Double>.size)) else {
        sqlite3_result_error_nomem(context)
        return
    }
    let addend: Double
    switch sqlite3_value_type(value) {
    case SQLITE_NULL: return
    case SQLITE_FLOAT: addend = sqlite3_value_double(value)
    case SQLITE_INTEGER: addend = Double(sqlite3_value_int64(value))
    case SQLITE_BLOB where sqlite3_value_bytes(value) == 8:
        guard let bytes = sqlite3_value_blob(value) else { return }
        addend = Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)))
    default:
        sqlite3_result_error(context, "osd_sum_real: a value that is no number", -1)
        return
    }
    let sum = memory.assumingMemoryBound(to: Double.self)
    sum.pointee = sum.pointee + addend
}

/// The sum (a NaN as its 8 bytes), or NULL when no row had a value.
private let finalCallback: @convention(c) (OpaquePointer?) -> Void = { context in
    guard let memory = sqlite3_aggregate_context(context, 0) else {
        sqlite3_result_null(context)
        return
    }
    let sum = memory.assumingMemoryBound(to: Double.self).pointee
    if sum.isNaN {
        // SQLite makes a NaN result NULL: give its bits, as a column holds a NaN.
        withUnsafeBytes(of: sum.bitPattern.littleEndian) { bytes in
            sqlite3_result_blob(context, bytes.baseAddress, Int32(bytes.count), osd_sqlite_transient())
        }
    } else {
        sqlite3_result_double(context, sum)
    }
}
