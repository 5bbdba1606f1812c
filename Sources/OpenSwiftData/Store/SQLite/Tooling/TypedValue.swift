/// A stored value as the Swift value it encodes, for tools that read and write stores without the
/// app's model classes.
package enum TypedValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case date(Date)
    case string(String)
    case data([UInt8])
    case uuid(UUID)
    case decimal(Decimal)
    /// A `Codable` value other than a scalar, as its JSON text.
    case json(String)

    /// Equal when both hold the same value; NaN equals NaN of the same bits (a round trip keeps them).
    package static func == (lhs: TypedValue, rhs: TypedValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.uint(let a), .uint(let b)): a == b
        case (.double(let a), .double(let b)): a.bitPattern == b.bitPattern
        case (.date(let a), .date(let b)): a.timeIntervalSinceReferenceDate.bitPattern == b.timeIntervalSinceReferenceDate.bitPattern
        case (.string(let a), .string(let b)): a.utf8.elementsEqual(b.utf8)
        case (.data(let a), .data(let b)): a == b
        case (.uuid(let a), .uuid(let b)): a == b
        case (.decimal(let a), .decimal(let b)): a == b
        case (.json(let a), .json(let b)): a == b
        default: false
        }
    }
}

extension StoredSchema.Attribute {
    /// The Swift value a stored value of this attribute encodes, or `nil` when the stored value is
    /// not one this attribute's storage writes (a damaged or foreign row).
    package func decode(_ value: StoredValue) -> TypedValue? {
        if case .null = value { return .null }
        switch (storage, value) {
        case (.integer, .integer(let number)): return type == "Bool" || type == "Bool?" ? .bool(number != 0) : .int(number)
        case (.unsignedInteger, .integer(let number)): return .uint(UInt64(bitPattern: number) ^ (1 << 63))
        case (.real, .real(let number)): return .double(number)
        case (.real, .integer(let number)): return .double(Double(number))
        case (.date, .real(let number)): return .date(Date(timeIntervalSinceReferenceDate: number))
        case (.date, .integer(let number)): return .date(Date(timeIntervalSinceReferenceDate: Double(number)))
        case (.real, .blob(let bytes)), (.date, .blob(let bytes)):
            guard bytes.count == 8 else { return nil }
            let bits = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
            return storage == .date ? .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits))) : .double(Double(bitPattern: bits))
        case (.text, .text(let text)): return .string(text)
        case (.blob, .blob(let bytes)): return .data(bytes)
        case (.uuid, .blob(let bytes)):
            return UUID(sixteenBytes: bytes).map { .uuid($0) }
        case (.decimal, .blob(let bytes)):
            return bytes.withUnsafeBytes { OrderedDecimalCoding.decode($0) }.map { .decimal($0) }
        case (.json, .text(let text)): return .json(text)
        default: return nil
        }
    }

    /// The stored value of a Swift value of this attribute, as the model's generated code writes it.
    package func encode(_ value: TypedValue) -> StoredValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .integer(flag ? 1 : 0)
        case .int(let number): return .integer(number)
        case .uint(let number): return .integer(Int64(bitPattern: number ^ (1 << 63)))
        case .double(let number): return Self.encode(number)
        case .date(let date): return Self.encode(date.timeIntervalSinceReferenceDate)
        case .string(let text), .json(let text): return .text(text)
        case .data(let bytes): return .blob(bytes)
        case .uuid(let uuid): return .blob(withUnsafeBytes(of: uuid.uuid) { Array($0) })
        case .decimal(let decimal): return .blob(OrderedDecimalCoding.encode(decimal))
        }
    }

    private static func encode(_ number: Double) -> StoredValue {
        guard number.isNaN else { return .real(number) }
        return .blob(withUnsafeBytes(of: number.bitPattern.littleEndian) { Array($0) })
    }
}

extension TypedValue {
    /// The Swift value of a value the history preserved for a deleted model
    /// (`.preserveValueOnDeletion`), read as `attribute`'s storage writes it when the schema still
    /// has the attribute, or by the value's own form otherwise; `nil` for a relationship's value.
    package init?(preserved value: SnapshotValue, of attribute: StoredSchema.Attribute?) {
        // The value by its own form, and as the store writes it (which the attribute reads).
        let own: TypedValue
        let stored: StoredValue
        switch value {
        case .null: (own, stored) = (.null, .null)
        case .integer(let number): (own, stored) = (.int(number), .integer(number))
        case .real(let number): (own, stored) = (.double(number), .real(number))
        case .date(let date): (own, stored) = (.date(date), .real(date.timeIntervalSinceReferenceDate))
        case .text(let text): (own, stored) = (.string(text), .text(text))
        case .json(let text): (own, stored) = (.json(text), .text(text))
        case .uuid(let uuid): (own, stored) = (.uuid(uuid), .blob(withUnsafeBytes(of: uuid.uuid) { Array($0) }))
        case .bytes(let bytes): (own, stored) = (.data(Array(bytes)), .blob(Array(bytes)))
        case .identifier, .identifiers: return nil
        }
        self = attribute.flatMap { $0.decode(stored) } ?? own
    }
}

extension UUID {
    /// The UUID whose 16 bytes, in order, `bytes` holds; `nil` when it holds another number.
    init?(sixteenBytes bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.init(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                         bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
