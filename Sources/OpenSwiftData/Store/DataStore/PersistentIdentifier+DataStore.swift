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
        try PersistentIdentifier(storeIdentifier: storeIdentifier, entityName: entityName, externalKey: ExternalKey(primaryKey))
    }

    /// The identifier of the model a custom store holds under `key`, numbered by the store's
    /// table of keys.
    private init(storeIdentifier: String, entityName: String, externalKey key: ExternalKey) {
        let keyTable = ExternalKeyTable.table(for: storeIdentifier)
        let number = keyTable.number(for: key, entityName: entityName)
        self.init(location: _ModelLocation(entityName: entityName, storeIdentifier: storeIdentifier, keyTable: keyTable), key: .permanent(number))
    }

    /// The key a custom data store chose for the model, when it has one.
    var externalKey: ExternalKey? {
        guard let number = primaryKey else { return nil }
        return location.keyTable?.entry(for: number)?.key
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
            self.init(storeIdentifier: storeIdentifier, entityName: entityName, externalKey: external)
        } else {
            let id = try container.decode(ID.self, forKey: .id)
            self.init(storeIdentifier: storeIdentifier, entityName: entityName, key: id.key)
        }
    }
}
