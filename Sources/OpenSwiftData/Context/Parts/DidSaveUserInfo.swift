/// The `userInfo` of a context's ``ModelContext/didSave`` notifications: one dictionary, made
/// with the context, whose three values each save replaces in place.
///
/// A dictionary built for each save hashes its three keys and allocates its storage (about 3,000
/// instructions, a twentieth of a one-row save's own work). Replacing a value at an index of the
/// dictionary does neither. An observer that keeps a notification keeps its dictionary as it was
/// posted: the next save's replacement copies the storage first (copy on write).
struct DidSaveUserInfo {
    private var dictionary: [AnyHashable: Any] = [:]
    /// The indices of the inserted, updated and deleted identifiers, in that order. Replacing a
    /// value (`MutableCollection`) leaves a collection's indices valid.
    private var positions: [Dictionary<AnyHashable, Any>.Index] = []

    init() {
        let keys: [ModelContext.NotificationKey] = [.insertedIdentifiers, .updatedIdentifiers, .deletedIdentifiers]
        for key in keys { dictionary[key.rawValue] = [PersistentIdentifier]() }
        positions = keys.compactMap { dictionary.index(forKey: $0.rawValue) }
    }

    /// The `userInfo` of a post of `saved`. Call ``clear()`` after the post.
    mutating func filled(with saved: ModelContext.SavedChanges) -> [AnyHashable: Any] {
        guard positions.count == 3 else {
            return [
                ModelContext.NotificationKey.insertedIdentifiers.rawValue: saved.insertedIdentifiers,
                ModelContext.NotificationKey.updatedIdentifiers.rawValue: saved.updatedIdentifiers,
                ModelContext.NotificationKey.deletedIdentifiers.rawValue: saved.deletedIdentifiers,
            ]
        }
        dictionary.values[positions[0]] = saved.insertedIdentifiers
        dictionary.values[positions[1]] = saved.updatedIdentifiers
        dictionary.values[positions[2]] = saved.deletedIdentifiers
        return dictionary
    }

    /// Lets go of the last save's identifiers, so that the context does not keep them alive.
    mutating func clear() {
        let none: [PersistentIdentifier] = []
        for position in positions { dictionary.values[position] = none }
    }
}
