import Foundation
import OpenSwiftData
import PostgresNIO

/// A row of a PostgreSQL result, read column by column by generated model code. Values arrive in
/// PostgreSQL's binary format: integers and doubles big-endian, text as UTF-8, BYTEA as bytes.
struct PostgresRowReader: _RowReader {
    let row: PostgresRandomAccessRow

    init(_ row: PostgresRow) {
        self.row = row.makeRandomAccess()
    }

    func _isNull(_ column: Int32) -> Bool {
        Int(column) >= row.count || row[Int(column)].bytes == nil
    }

    func _int64(_ column: Int32) -> Int64 {
        guard Int(column) < row.count else { return 0 }
        let cell = row[Int(column)]
        guard let bytes = cell.bytes else { return 0 }
        let at = bytes.readerIndex
        switch cell.dataType {
        case .int8: return bytes.getInteger(at: at, as: Int64.self) ?? 0
        case .int4: return Int64(bytes.getInteger(at: at, as: Int32.self) ?? 0)
        case .int2: return Int64(bytes.getInteger(at: at, as: Int16.self) ?? 0)
        case .bool: return Int64(bytes.getInteger(at: at, as: UInt8.self) ?? 0)
        case .float8: return Int64(exactly: _double(column)) ?? 0
        default: return 0
        }
    }

    func _double(_ column: Int32) -> Double {
        guard Int(column) < row.count else { return 0 }
        let cell = row[Int(column)]
        guard let bytes = cell.bytes else { return 0 }
        switch cell.dataType {
        case .float8: return Double(bitPattern: bytes.getInteger(at: bytes.readerIndex, as: UInt64.self) ?? 0)
        case .float4: return Double(Float(bitPattern: bytes.getInteger(at: bytes.readerIndex, as: UInt32.self) ?? 0))
        default: return Double(_int64(column))
        }
    }

    func _string(_ column: Int32) -> String {
        guard Int(column) < row.count, let bytes = row[Int(column)].bytes else { return "" }
        return bytes.getString(at: bytes.readerIndex, length: bytes.readableBytes) ?? ""
    }

    func _withBytes<R>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        guard Int(column) < row.count, let bytes = row[Int(column)].bytes else {
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        return try bytes.withUnsafeReadableBytes(body)
    }

    var _context: (model: String, property: String)? { nil }
}

/// Why a value cannot be written to PostgreSQL.
enum PostgresTextError: Error, CustomStringConvertible {
    /// PostgreSQL text cannot hold U+0000.
    case containsNull

    var description: String {
        "the text contains U+0000 (NUL), which PostgreSQL text cannot hold; remove it or store the value as Data"
    }
}

/// The values generated model code writes for one row, by property index, turned into a
/// statement's parameters in the order the statement names them.
final class PostgresParameters: _RowWriter {
    enum Value {
        case null, integer(Int64), real(Double), text(String), bytes(ByteBuffer)
    }

    private(set) var values: [Value]
    private let storage: [StorageClass?]

    init(entity: Schema.Entity) {
        self.storage = entity.fields.map(\.storage)
        self.values = Array(repeating: .null, count: entity.fields.count)
    }

    func _hasParameter(_ column: Int32) -> Bool { Int(column) < storage.count && storage[Int(column)] != nil }
    func _bindNull(_ column: Int32) throws { set(.null, column) }
    func _bind(_ value: Int64, _ column: Int32) throws { set(.integer(value), column) }
    func _bind(_ value: Double, _ column: Int32) throws { set(.real(value), column) }
    func _bind(_ value: String, _ column: Int32) throws {
        guard PostgresSQL.canHold(value) else { throw PostgresTextError.containsNull }
        set(.text(value), column)
    }
    func _bind(bytes: UnsafeRawBufferPointer, _ column: Int32) throws {
        // A NaN arrives as its 8 bytes (SQLite would turn it into NULL); PostgreSQL keeps NaN.
        if Int(column) < storage.count, storage[Int(column)] == .real, bytes.count == 8 {
            return set(.real(Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)))), column)
        }
        set(.bytes(ByteBuffer(bytes: bytes)), column)
    }

    private func set(_ value: Value, _ column: Int32) {
        guard Int(column) < values.count else { return }
        values[Int(column)] = value
    }

    /// How many bytes a property's value takes as text or bytes (0 for other values).
    func byteCount(_ property: Int) -> Int {
        switch values[property] {
        case .text(let text): text.utf8.count
        case .bytes(let bytes): bytes.readableBytes
        case .null, .integer, .real: 0
        }
    }

    /// The parameters of the given properties, in order, then `keys`.
    func bindings(_ properties: [Int], then keys: [Int64] = []) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: properties.count + keys.count)
        append(properties, to: &bindings)
        for key in keys { bindings.append(key) }
        return bindings
    }

    /// The arguments of a prepared statement whose parameters are `key`, then the given
    /// properties cast to their columns' types; `nil` when a value does not have its column's
    /// type (the statement is then parsed with the value's own type).
    func arguments(after key: Int64, _ properties: [Int]) -> [PostgresData]? {
        var arguments = [PostgresData(int64: key)]
        arguments.reserveCapacity(properties.count + 1)
        for property in properties {
            switch (values[property], storage[property]) {
            case (.null, _): arguments.append(.null)
            case (.integer(let number), .integer?), (.integer(let number), .unsignedInteger?): arguments.append(PostgresData(int64: number))
            case (.real(let number), .real?), (.real(let number), .date?): arguments.append(PostgresData(double: number))
            case (.text(let text), .text?), (.text(let text), .json?): arguments.append(PostgresData(string: text))
            case (.bytes(let bytes), .blob?), (.bytes(let bytes), .uuid?), (.bytes(let bytes), .decimal?):
                arguments.append(PostgresData(type: .bytea, value: bytes))
            default: return nil
            }
        }
        return arguments
    }

    /// Appends the parameters of the given properties, in order.
    func append(_ properties: [Int], to bindings: inout PostgresBindings) {
        for property in properties {
            switch values[property] {
            case .null: bindings.appendNull()
            case .integer(let number): bindings.append(number)
            case .real(let number): bindings.append(number)
            case .text(let text): bindings.append(text)
            case .bytes(let bytes): bindings.append(bytes)
            }
        }
    }
}

extension PostgresRowReader {
    /// An `int8[]` column in PostgreSQL's binary array format (dimensions, a null flag, the element
    /// type, each dimension's length and lower bound, then each element's length and bytes); empty
    /// when NULL. Null elements are skipped.
    func int64Array(_ column: Int32) -> [Int64] {
        guard Int(column) < row.count, let bytes = row[Int(column)].bytes else { return [] }
        var buffer = bytes
        guard let dimensions = buffer.readInteger(as: Int32.self), dimensions == 1,
              buffer.readInteger(as: Int32.self) != nil, buffer.readInteger(as: UInt32.self) != nil,
              let count = buffer.readInteger(as: Int32.self), count >= 0, buffer.readInteger(as: Int32.self) != nil
        else { return [] }
        var keys: [Int64] = []
        keys.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let length = buffer.readInteger(as: Int32.self) else { break }
            guard length == 8, let key = buffer.readInteger(as: Int64.self) else {
                if length > 0 { buffer.moveReaderIndex(forwardBy: min(Int(length), buffer.readableBytes)) }
                continue
            }
            keys.append(key)
        }
        return keys
    }
}
