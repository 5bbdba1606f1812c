/// A type of value a snapshot holds.
public typealias DataStoreSnapshotValue = Codable & Sendable

/// A type that holds the persisted values of one model, as a data store reads and writes them.
///
/// Most stores use ``DefaultSnapshot``. A snapshot of your own type must encode and decode its
/// values under ``DataStoreSnapshotCodingKey`` keys as ``DefaultSnapshot`` does: OpenSwiftData
/// converts between the two through `Codable`.
public protocol DataStoreSnapshot: Codable, Sendable {
    /// Creates a snapshot of the model that owns the backing data.
    init(from: any BackingData, relatedBackingDatas: inout [PersistentIdentifier: any BackingData])
    /// The identifier of the model.
    var persistentIdentifier: PersistentIdentifier { get }
    /// Returns a copy of the snapshot with another identifier, with the identifiers of related
    /// models replaced through `remappedIdentifiers`.
    func copy(persistentIdentifier: PersistentIdentifier, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]?) -> Self
}

/// The keys under which a snapshot encodes its identifier and its values.
public enum DataStoreSnapshotCodingKey: CodingKey, Hashable, Sendable {
    /// The key of the model's identifier.
    case persistentIdentifier
    /// The key of one persisted property, by name.
    case modeledProperty(String)

    /// The key's text.
    public var stringValue: String {
        switch self {
        case .persistentIdentifier: "persistentIdentifier"
        case .modeledProperty(let name): name
        }
    }

    /// Creates the key for a text: the identifier's key, or a property's.
    public init?(stringValue: String) {
        self = stringValue == "persistentIdentifier" ? .persistentIdentifier : .modeledProperty(stringValue)
    }

    /// Keys are never numbers.
    public var intValue: Int? { nil }

    /// Keys are never numbers.
    public init?(intValue: Int) { nil }
}

/// The snapshot that OpenSwiftData's stores use: a model's identifier and its persisted values by
/// property name.
///
/// Attributes keep their Swift type in the encoded form (a `Date` is encoded as a date, so an
/// encoder's date strategy applies); a to-one relationship is the related model's identifier, and
/// a to-many relationship that the model's side keeps is an array of identifiers.
public struct DefaultSnapshot: DataStoreSnapshot, Hashable {
    /// The identifier of the model.
    public let persistentIdentifier: PersistentIdentifier
    /// The values by property name; a property without a value here was not read.
    var values: [String: SnapshotValue]

    init(persistentIdentifier: PersistentIdentifier, values: [String: SnapshotValue]) {
        self.persistentIdentifier = persistentIdentifier
        self.values = values
    }

    /// Creates a snapshot that holds the identifier of the backing data's model and no values.
    ///
    /// OpenSwiftData takes snapshots of models itself, from the code that `@Model` generates; the
    /// backing data alone does not hold a model's values.
    public init(from backingData: any BackingData, relatedBackingDatas: inout [PersistentIdentifier: any BackingData]) {
        let state = (backingData._osdModel as (any PersistentModel)?)?._osdState
        let identifier = backingData.persistentModelID
            ?? PersistentIdentifier(storeIdentifier: state?.storeIdentifier, entityName: state?.entityName ?? "", key: .temporary(PersistentIdentifier.nextTemporaryKey()))
        self.init(persistentIdentifier: identifier, values: [:])
    }

    /// The names of the properties the snapshot has values for.
    public var propertyNames: [String] { values.keys.sorted() }

    /// Returns a copy with another identifier; related models' identifiers found in
    /// `remappedIdentifiers` are replaced.
    public func copy(persistentIdentifier: PersistentIdentifier, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]?) -> DefaultSnapshot {
        guard let remappedIdentifiers, !remappedIdentifiers.isEmpty else {
            return DefaultSnapshot(persistentIdentifier: persistentIdentifier, values: values)
        }
        return DefaultSnapshot(persistentIdentifier: persistentIdentifier, values: values.mapValues { $0.remapped(remappedIdentifiers) })
    }

    /// Encodes the identifier and each value under its property's name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: DataStoreSnapshotCodingKey.self)
        try container.encode(persistentIdentifier, forKey: .persistentIdentifier)
        for (name, value) in values { try container.encode(value, forKey: .modeledProperty(name)) }
    }

    /// Decodes a snapshot that ``encode(to:)`` wrote.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: DataStoreSnapshotCodingKey.self)
        persistentIdentifier = try container.decode(PersistentIdentifier.self, forKey: .persistentIdentifier)
        var values: [String: SnapshotValue] = [:]
        for key in container.allKeys where key != .persistentIdentifier {
            values[key.stringValue] = try container.decode(SnapshotValue.self, forKey: key)
        }
        self.values = values
    }
}
