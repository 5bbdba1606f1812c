// How each standard value type is stored. The full table is in docs/StorageLayout.md.

extension _PersistentScalar where Self: FixedWidthInteger {
    public static var _osdPlaceholder: Self { 0 }

    /// Signed integers and unsigned integers narrower than 64 bits are plain INTEGERs; `UInt64` and
    /// `UInt` flip the sign bit so that SQL's signed order matches Swift's unsigned order.
    @inlinable
    public static var _osdStorage: _StorageClass {
        Self.isSigned || Self.bitWidth < 64 ? .integer : .unsignedInteger
    }

    @inlinable
    public static func _osdRead(from row: some _RowReader, _ column: Int32) throws -> Self {
        let stored = row._int64(column)
        if _osdStorage == .unsignedInteger {
            return Self(truncatingIfNeeded: UInt64(bitPattern: stored) ^ (1 << 63))
        }
        // Compared as Int64, without `init(exactly:)`'s generic `Optional<Self>`.
        let value = Self(truncatingIfNeeded: stored)
        guard Int64(truncatingIfNeeded: value) == stored, (value < 0) == (stored < 0) else {
            throw ValueCodingError.outOfRange(context: row._context, value: "\(stored)")
        }
        return value
    }

    @inlinable
    public func _osdWrite(to writer: some _RowWriter, _ column: Int32) throws {
        if Self._osdStorage == .unsignedInteger {
            try writer._bind(Int64(bitPattern: UInt64(truncatingIfNeeded: self) ^ (1 << 63)), column)
        } else {
            try writer._bind(Int64(self), column)
        }
    }
}

extension Int: _PersistentScalar {}
extension Int8: _PersistentScalar {}
extension Int16: _PersistentScalar {}
extension Int32: _PersistentScalar {}
extension Int64: _PersistentScalar {}
extension UInt: _PersistentScalar {}
extension UInt8: _PersistentScalar {}
extension UInt16: _PersistentScalar {}
extension UInt32: _PersistentScalar {}
extension UInt64: _PersistentScalar {}

extension Bool: _PersistentScalar {
    public static var _osdPlaceholder: Self { false }
    @inlinable public static var _osdStorage: _StorageClass { .integer }
    @inlinable public static func _osdRead(from row: some _RowReader, _ column: Int32) throws -> Bool { row._int64(column) != 0 }
    @inlinable public func _osdWrite(to writer: some _RowWriter, _ column: Int32) throws { try writer._bind(Int64(self ? 1 : 0), column) }
}

extension Double: _PersistentScalar {
    public static var _osdPlaceholder: Self { 0 }
    @inlinable public static var _osdStorage: _StorageClass { .real }
    @inlinable public static func _osdRead(from row: some _RowReader, _ column: Int32) throws -> Double { try row._double(column) }
    @inlinable public func _osdWrite(to writer: some _RowWriter, _ column: Int32) throws {
        if isNaN {
            // SQLite turns a bound NaN into NULL; keep the exact bits instead.
            try withUnsafeBytes(of: bitPattern.littleEndian) { try writer._bind(bytes: $0, column) }
        } else {
            try writer._bind(self, column)
        }
    }
}

extension Float: _PersistentScalar {
    public static var _osdPlaceholder: Self { 0 }
    public static var _osdStorage: _StorageClass { .real }
    public static func _osdRead(from row: some _RowReader, _ column: Int32) throws -> Float {
        let double = try row._double(column)
        if double.isNaN {
            // A NaN Float is stored as the Double NaN that carries its payload.
            return Float(bitPattern: UInt32(truncatingIfNeeded: double.bitPattern >> 29) & 0x007F_FFFF | (double.sign == .minus ? 0xFF80_0000 : 0x7F80_0000))
        }
        return Float(double)
    }
    public func _osdWrite(to writer: some _RowWriter, _ column: Int32) throws {
        if isNaN {
            let payload = UInt64(bitPattern & 0x007F_FFFF) << 29
            let bits = (sign == .minus ? 0xFFF0_0000_0000_0000 : 0x7FF0_0000_0000_0000) | payload
            try Double(bitPattern: bits)._osdWrite(to: writer, column)
        } else {
            try Double(self)._osdWrite(to: writer, column)
        }
    }
}

extension String: _PersistentScalar {
    public static var _osdPlaceholder: Self { "" }
    @inlinable public static var _osdStorage: _StorageClass { .text }
    @inlinable public static func _osdRead(from row: some _RowReader, _ column: Int32) throws -> String { row._string(column) }
    @inlinable public func _osdWrite(to writer: some _RowWriter, _ column: Int32) throws { try writer._bind(self, column) }
}

extension Date: _PersistentScalar {
    public static var _osdPlaceholder: Self { Date(timeIntervalSinceReferenceDate: 0) }
    @inlinable public static var _osdStorage: _StorageClass { .date }
    @inlinable public static func _osdRead(from row: some _RowReader, _ column: Int32) throws -> Date {
        Date(timeIntervalSinceReferenceDate: try row._double(column))
    }
    @inlinable public func _osdWrite(to writer: some _RowWriter, _ column: Int32) throws {
        // A NaN interval is no point in time: the stores' date columns hold numbers only.
        guard !timeIntervalSinceReferenceDate.isNaN else { throw ValueWritingError.dateIsNaN }
        try timeIntervalSinceReferenceDate._osdWrite(to: writer, column)
    }
}

extension Data: _PersistentScalar {
    public static var _osdPlaceholder: Self { Data() }
    public static var _osdStorage: _StorageClass { .blob }
    public static func _osdRead(from row: some _RowReader, _ column: Int32) throws -> Data {
        row._withBytes(column) { Data($0) }
    }
    public func _osdWrite(to writer: some _RowWriter, _ column: Int32) throws {
        try withUnsafeBytes { try writer._bind(bytes: $0, column) }
    }
}

extension UUID: _PersistentScalar {
    public static var _osdPlaceholder: Self { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
    public static var _osdStorage: _StorageClass { .uuid }
    public static func _osdRead(from row: some _RowReader, _ column: Int32) throws -> UUID {
        try row._withBytes(column) { bytes in
            guard bytes.count == 16 else {
                throw ValueCodingError.outOfRange(context: row._context, value: "a \(bytes.count)-byte UUID")
            }
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: bytes) }
            return UUID(uuid: uuid)
        }
    }
    public func _osdWrite(to writer: some _RowWriter, _ column: Int32) throws {
        try withUnsafeBytes(of: uuid) { try writer._bind(bytes: $0, column) }
    }
}

extension URL: _PersistentScalar {
    public static var _osdPlaceholder: Self { URL(fileURLWithPath: "/") }
    public static var _osdStorage: _StorageClass { .text }
    public static func _osdRead(from row: some _RowReader, _ column: Int32) throws -> URL {
        let text = row._string(column)
        guard let url = URL(string: text) else {
            throw ValueCodingError.undecodable(context: row._context, underlying: "'\(text)' is not a URL")
        }
        return url
    }
    public func _osdWrite(to writer: some _RowWriter, _ column: Int32) throws { try writer._bind(absoluteString, column) }
}

extension Decimal: _PersistentScalar {
    public static var _osdPlaceholder: Self { 0 }
    public static var _osdStorage: _StorageClass { .decimal }
    public static func _osdRead(from row: some _RowReader, _ column: Int32) throws -> Decimal {
        try row._withBytes(column) { bytes in
            guard let value = OrderedDecimalCoding.decode(bytes) else {
                throw ValueCodingError.undecodable(context: row._context, underlying: "malformed Decimal bytes")
            }
            return value
        }
    }
    public func _osdWrite(to writer: some _RowWriter, _ column: Int32) throws {
        try OrderedDecimalCoding.encode(self).withUnsafeBytes { try writer._bind(bytes: $0, column) }
    }
}

extension Optional: _PersistentScalar where Wrapped: _PersistentScalar {
    public static var _osdPlaceholder: Self { nil }
    @inlinable public static var _osdStorage: _StorageClass { Wrapped._osdStorage }
    @inlinable public static func _osdRead(from row: some _RowReader, _ column: Int32) throws -> Wrapped? {
        row._isNull(column) ? nil : try Wrapped._osdRead(from: row, column)
    }
    @inlinable public func _osdWrite(to writer: some _RowWriter, _ column: Int32) throws {
        if let self { try self._osdWrite(to: writer, column) } else { try writer._bindNull(column) }
    }
}
