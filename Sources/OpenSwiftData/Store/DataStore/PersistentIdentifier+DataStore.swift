extension PersistentIdentifier {
    /// Creates the identifier of a model that a custom data store holds under a primary key of its
    /// choosing.
    ///
    /// ```swift
    /// let permanent = try PersistentIdentifier.identifier(for: identifier, entityName: "Trip", primaryKey: UUID())
    /// ```
    ///
    /// Identifiers made from equal store identifiers, entity names and keys are equal, in this
    /// process and after encoding and decoding in another.
    ///
    /// - Throws: ``SwiftDataError/modelValidationFailure`` when the key cannot be encoded.
    public static func identifier<T>(for storeIdentifier: String, entityName: String, primaryKey: T) throws -> PersistentIdentifier
    where T: Comparable, T: CustomStringConvertible, T: Codable, T: Hashable {
        let key = try ExternalKey(primaryKey)
        let surrogate = ExternalKeys.shared.surrogate(for: key, entityName: entityName, store: storeIdentifier)
        return PersistentIdentifier(storeIdentifier: storeIdentifier, entityName: entityName, key: .permanent(surrogate))
    }

    /// The key a custom data store chose for the model, when it has one.
    var externalKey: ExternalKey? {
        guard let storeIdentifier, let surrogate = primaryKey else { return nil }
        return ExternalKeys.shared.externalKey(for: surrogate, store: storeIdentifier)?.key
    }

    private enum CodingKeys: String, CodingKey {
        case storeIdentifier, entityName, id, primaryKey
    }

    /// Encodes the store, the entity and the identity; an identity a custom store chose is encoded
    /// as that store's key, so that it decodes to an equal identifier in any process.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(storeIdentifier, forKey: .storeIdentifier)
        try container.encode(entityName, forKey: .entityName)
        if let externalKey {
            try container.encode(externalKey, forKey: .primaryKey)
        } else {
            try container.encode(id, forKey: .id)
        }
    }

    /// Decodes an identifier that ``encode(to:)`` wrote.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let storeIdentifier = try container.decodeIfPresent(String.self, forKey: .storeIdentifier)
        let entityName = try container.decode(String.self, forKey: .entityName)
        if let external = try container.decodeIfPresent(ExternalKey.self, forKey: .primaryKey) {
            guard let storeIdentifier else {
                throw DecodingError.dataCorruptedError(forKey: .primaryKey, in: container, debugDescription: "An identifier with a store's primary key needs its store identifier")
            }
            let surrogate = ExternalKeys.shared.surrogate(for: external, entityName: entityName, store: storeIdentifier)
            self.init(storeIdentifier: storeIdentifier, entityName: entityName, key: .permanent(surrogate))
        } else {
            let id = try container.decode(ID.self, forKey: .id)
            self.init(storeIdentifier: storeIdentifier, entityName: entityName, key: id.key)
        }
    }
}

/// A primary key a custom data store chose: its type and its JSON form, so that equal keys of one
/// type are equal and keys of different types (a `String` and a `UUID` of the same text) are not.
struct ExternalKey: Hashable, Codable, Sendable, CustomStringConvertible {
    /// The key's type, as `String(reflecting:)` names it.
    let type: String
    /// The key encoded as JSON.
    let json: String

    init<T: Codable>(_ key: T) throws {
        type = String(reflecting: T.self)
        do {
            json = String(decoding: try JSONCoding.encoder().encode(key), as: UTF8.self)
        } catch {
            throw SwiftDataError(.modelValidationFailure, reason: "The primary key \(key) of type \(type) cannot be encoded: \(error)")
        }
    }

    var description: String { json }
}

/// The keys custom data stores chose, each with a number of its own: the context and its stores
/// work with 64-bit keys, and a store's key is translated at the seam. Numbers are unique across
/// stores, so a number alone names the entity and key.
final class ExternalKeys: Sendable {
    static let shared = ExternalKeys()

    private struct Known: Sendable {
        var numbers: [String: [Entry: Int64]] = [:]
        var entries: [String: [Int64: Entry]] = [:]
        var next: Int64 = 1
    }

    /// A key of one entity.
    struct Entry: Hashable, Sendable {
        let entityName: String
        let key: ExternalKey
    }

    private let known = LockedValue(Known())

    /// The number of a store's key, given one the first time it is seen.
    func surrogate(for key: ExternalKey, entityName: String, store: String) -> Int64 {
        let entry = Entry(entityName: entityName, key: key)
        return known.withValue { known in
            if let number = known.numbers[store]?[entry] { return number }
            let number = known.next
            known.next += 1
            known.numbers[store, default: [:]][entry] = number
            known.entries[store, default: [:]][number] = entry
            return number
        }
    }

    /// The entity and key that a number stands for in a store.
    func externalKey(for surrogate: Int64, store: String) -> Entry? {
        known.withValue { $0.entries[store]?[surrogate] }
    }
}
