import Foundation

/// One persisted value in a ``DefaultSnapshot``, in the form its property's type is stored in.
///
/// Encoded as a one-key object that names the form (`{"text": "Paris"}`, `{"date": …}`), so that a
/// snapshot decodes without the schema.
package enum SnapshotValue: Hashable, Sendable {
    case null
    /// Integers and Booleans; `UInt64` in its order-preserving form.
    case integer(Int64)
    case real(Double)
    case date(Date)
    case text(String)
    /// A `Codable` value other than the standard scalars, as JSON text.
    case json(String)
    case uuid(UUID)
    /// `Data`, and `Decimal` in its order-preserving form.
    case bytes(Data)
    /// A to-one relationship.
    case identifier(PersistentIdentifier)
    /// The side of a to-many relationship that keeps it.
    case identifiers([PersistentIdentifier])

    /// The value with related models' identifiers replaced through `map`.
    func remapped(_ map: [PersistentIdentifier: PersistentIdentifier]) -> SnapshotValue {
        switch self {
        case .identifier(let id): .identifier(map[id] ?? id)
        case .identifiers(let ids): .identifiers(ids.map { map[$0] ?? $0 })
        default: self
        }
    }

    /// The value without references to the given identifiers, or `nil` when it has none.
    func removingReferences(to removed: Set<PersistentIdentifier>) -> SnapshotValue? {
        switch self {
        case .identifier(let id) where removed.contains(id): .null
        case .identifiers(let ids) where ids.contains(where: removed.contains): .identifiers(ids.filter { !removed.contains($0) })
        default: nil
        }
    }
}

extension SnapshotValue: Codable {
    private enum Form: String, CodingKey {
        case null, integer, real, realBits, date, text, json, uuid, bytes, identifier, identifiers
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Form.self)
        switch self {
        case .null: try container.encode(true, forKey: .null)
        case .integer(let value): try container.encode(value, forKey: .integer)
        case .real(let value) where value.isFinite: try container.encode(value, forKey: .real)
        // NaN and the infinities, which JSON has no numbers for.
        case .real(let value): try container.encode(value.bitPattern, forKey: .realBits)
        case .date(let value): try container.encode(value, forKey: .date)
        case .text(let value): try container.encode(value, forKey: .text)
        case .json(let value): try container.encode(value, forKey: .json)
        case .uuid(let value): try container.encode(value, forKey: .uuid)
        case .bytes(let value): try container.encode(value, forKey: .bytes)
        case .identifier(let value): try container.encode(value, forKey: .identifier)
        case .identifiers(let value): try container.encode(value, forKey: .identifiers)
        }
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Form.self)
        guard let form = container.allKeys.first, container.allKeys.count == 1 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "A snapshot value is an object with one key that names its form, such as {\"text\": \"Paris\"}"))
        }
        switch form {
        case .null: self = .null
        case .integer: self = .integer(try container.decode(Int64.self, forKey: form))
        case .real: self = .real(try container.decode(Double.self, forKey: form))
        case .realBits: self = .real(Double(bitPattern: try container.decode(UInt64.self, forKey: form)))
        case .date: self = .date(try container.decode(Date.self, forKey: form))
        case .text: self = .text(try container.decode(String.self, forKey: form))
        case .json: self = .json(try container.decode(String.self, forKey: form))
        case .uuid: self = .uuid(try container.decode(UUID.self, forKey: form))
        case .bytes: self = .bytes(try container.decode(Data.self, forKey: form))
        case .identifier: self = .identifier(try container.decode(PersistentIdentifier.self, forKey: form))
        case .identifiers: self = .identifiers(try container.decode([PersistentIdentifier].self, forKey: form))
        }
    }
}

extension SnapshotValue {
    /// The value of a column of a store's row, in the form its storage class keeps (a
    /// `.preserveValueOnDeletion` value recorded in the history).
    package init(_ row: some _RowReader, column: Int32, storage: StorageClass) throws {
        guard !row._isNull(column) else {
            self = .null
            return
        }
        self = switch storage {
        case .integer, .unsignedInteger: .integer(row._int64(column))
        case .real: .real(try row._double(column))
        case .date: .date(Date(timeIntervalSinceReferenceDate: try row._double(column)))
        case .text: .text(row._string(column))
        case .json: .json(row._string(column))
        case .uuid: row._withBytes(column) { $0.count == 16 ? .uuid(UUID(uuid: $0.loadUnaligned(as: uuid_t.self))) : .bytes(Data($0)) }
        case .blob, .decimal: .bytes(row._withBytes(column) { Data($0) })
        }
    }
}
