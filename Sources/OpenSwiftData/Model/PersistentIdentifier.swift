
/// A type that describes the aggregate identity of an OpenSwiftData model.
///
/// Identifiers are `Sendable`: pass them between actors and resolve them with
/// ``ModelContext/model(for:)`` or ``ModelContext/registeredModel(for:)`` in the other context.
public struct PersistentIdentifier: Hashable, Identifiable, Codable, Sendable, Comparable {
    /// The identity of a model within its store.
    public struct ID: Hashable, Codable, Sendable, Comparable, CustomStringConvertible {
        /// The row of a saved model, or a temporary number for an unsaved one.
        enum Key: Hashable, Codable, Sendable {
            case permanent(Int64)
            case temporary(UInt64)
        }

        let key: Key

        /// A textual representation of the identity, such as `p42` or `t7`.
        public var description: String {
            switch key {
            case .permanent(let row): "p\(row)"
            case .temporary(let number): "t\(number)"
            }
        }

        /// Orders temporary identities before permanent ones, then by number.
        public static func < (lhs: ID, rhs: ID) -> Bool {
            switch (lhs.key, rhs.key) {
            case (.temporary(let a), .temporary(let b)): a < b
            case (.permanent(let a), .permanent(let b)): a < b
            case (.temporary, .permanent): true
            case (.permanent, .temporary): false
            }
        }
    }

    /// The model's store and entity, shared with the other identifiers of the entity that one
    /// context or one read hands out: one reference to copy and retain instead of two strings.
    let location: _ModelLocation
    /// The model's identity within its store.
    public let id: ID

    /// The identifier of the store that holds the model.
    public var storeIdentifier: String? { location.storeIdentifier }
    /// The name of the model's entity.
    public var entityName: String { location.entityName }

    init(storeIdentifier: String?, entityName: String, key: ID.Key) {
        self.init(location: _ModelLocation(entityName: entityName, storeIdentifier: storeIdentifier), key: key)
    }

    /// The identifier of the model at `location` with `key`; makes many identifiers of one entity
    /// without a new location each.
    init(location: _ModelLocation, key: ID.Key) {
        self.location = location
        self.id = ID(key: key)
    }

    /// Two identifiers are equal when they name the same store, entity and identity.
    public static func == (lhs: PersistentIdentifier, rhs: PersistentIdentifier) -> Bool {
        lhs.id == rhs.id && (lhs.location === rhs.location || lhs.location.names(rhs.location))
    }

    /// Hashes the store, the entity (through their hash, computed once per location) and the
    /// identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(location.namesHash)
        hasher.combine(id)
    }

    /// The row of a saved model, or `nil` for a temporary identifier.
    var primaryKey: Int64? {
        if case .permanent(let row) = id.key { return row }
        return nil
    }

    /// Whether the identifier is temporary, that is, the model has not been saved yet.
    var isTemporary: Bool { primaryKey == nil }

    /// Orders identifiers by store, entity and identity.
    public static func < (lhs: PersistentIdentifier, rhs: PersistentIdentifier) -> Bool {
        (lhs.storeIdentifier ?? "", lhs.entityName, lhs.id) < (rhs.storeIdentifier ?? "", rhs.entityName, rhs.id)
    }

    private static let temporaryCounter = LockedValue<UInt64>(0)

    /// A new process-unique temporary key. A model keeps it in 56 bits (beside its flags): at a
    /// billion new models a second, a process would run for two years before it needed more.
    static func nextTemporaryKey() -> UInt64 {
        temporaryCounter.withValue { counter in
            counter += 1
            return counter
        }
    }
}

extension PersistentIdentifier: CustomReflectable {
    /// The store's identifier, the entity's name and the identity, as `print` and the debugger
    /// show an identifier.
    public var customMirror: Mirror {
        Mirror(self, children: ["storeIdentifier": storeIdentifier as Any, "entityName": entityName, "id": id], displayStyle: .struct)
    }
}
