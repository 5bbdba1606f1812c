import Foundation

/// A row read from a snapshot: the key in column 0, then the values of the requested properties.
/// Generated model code decodes it as it decodes any store's row.
struct SnapshotRow: _RowReader {
    /// The values by column.
    let columns: [SnapshotValue]
    let _context: (model: String, property: String)?

    func _isNull(_ column: Int32) -> Bool {
        if case .null = columns[Int(column)] { return true }
        return false
    }

    func _int64(_ column: Int32) -> Int64 {
        switch columns[Int(column)] {
        case .integer(let value): value
        case .real(let value): Int64(exactly: value) ?? 0
        case .identifier(let id): id.primaryKey ?? 0
        default: 0
        }
    }

    func _double(_ column: Int32) -> Double {
        switch columns[Int(column)] {
        case .real(let value): value
        case .date(let value): value.timeIntervalSinceReferenceDate
        case .integer(let value): Double(value)
        default: 0
        }
    }

    func _string(_ column: Int32) -> String {
        switch columns[Int(column)] {
        case .text(let value), .json(let value): value
        default: ""
        }
    }

    func _withBytes<R>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        switch columns[Int(column)] {
        case .bytes(let data): return try data.withUnsafeBytes(body)
        case .uuid(let uuid): return try withUnsafeBytes(of: uuid.uuid, body)
        default: return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }
}

/// Takes the values generated model code writes, one per property, as snapshot values: the form
/// of each comes from the property's storage class, and a to-one relationship's key becomes the
/// related model's identifier.
final class SnapshotWriter: _RowWriter {
    private let entity: Schema.Entity
    private let identifierOfKey: (Int64) -> PersistentIdentifier?
    private(set) var values: [SnapshotValue?]
    /// A key that names no model of the store, found while writing.
    private(set) var unknownKey: (property: String, key: Int64)?

    init(entity: Schema.Entity, identifierOfKey: @escaping (Int64) -> PersistentIdentifier?) {
        self.entity = entity
        self.identifierOfKey = identifierOfKey
        self.values = Array(repeating: nil, count: entity.fields.count)
    }

    func _hasParameter(_ column: Int32) -> Bool { entity.fields[Int(column)].hasColumn }

    func _bindNull(_ column: Int32) throws { values[Int(column)] = .null }

    func _bind(_ value: Int64, _ column: Int32) throws {
        let index = Int(column)
        guard entity.links[index] != nil else {
            values[index] = .integer(value)
            return
        }
        guard let identifier = identifierOfKey(value) else {
            unknownKey = (entity.fields[index].name, value)
            values[index] = .null
            return
        }
        values[index] = .identifier(identifier)
    }

    func _bind(_ value: Double, _ column: Int32) throws {
        let index = Int(column)
        values[index] = entity.fields[index].storage == .date ? .date(Date(timeIntervalSinceReferenceDate: value)) : .real(value)
    }

    func _bind(_ value: String, _ column: Int32) throws {
        let index = Int(column)
        values[index] = entity.fields[index].storage == .json ? .json(value) : .text(value)
    }

    func _bind(bytes: UnsafeRawBufferPointer, _ column: Int32) throws {
        let index = Int(column)
        let storage = entity.fields[index].storage
        if storage == .uuid, bytes.count == 16 {
            values[index] = .uuid(UUID(uuid: bytes.loadUnaligned(as: uuid_t.self)))
        } else if storage == .real || storage == .date, bytes.count == 8 {
            // A NaN, written as its bits so that its payload survives.
            values[index] = .real(Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))))
        } else {
            values[index] = .bytes(Data(bytes))
        }
    }

    /// Sets a property to a related model's identifier directly.
    func set(_ value: SnapshotValue, property index: Int) { values[index] = value }
}
