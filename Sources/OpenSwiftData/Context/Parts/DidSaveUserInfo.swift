/// The `userInfo` of a context's ``ModelContext/didSave`` notifications: one dictionary per
/// context whose three values each save replaces in place.
///
/// A dictionary built for each save hashes its three keys and allocates its storage (about 3,000
/// instructions, 4% of a one-row save's). Replacing a value at an index of the dictionary does
/// neither. An observer that keeps a notification keeps its dictionary as it was
/// posted: the next save's replacement copies the storage first (copy on write).
struct DidSaveUserInfo {
    /// The dictionary every context starts from, with empty identifiers, and the indices of the
    /// inserted, updated and deleted identifiers in it, in that order. Made once per process: a
    /// context's copy costs a retain until its first save (which copies the storage, without
    /// hashing), and an index of a dictionary is an index of its copies. Replacing a value
    /// (`MutableCollection`) leaves a collection's indices valid.
    // nonisolated(unsafe): a constant whose keys are strings and whose values are empty arrays of
    // `Sendable` identifiers; `Any` is all that keeps the compiler from seeing it is `Sendable`.
    nonisolated(unsafe) private static let template: (dictionary: [AnyHashable: Any], positions: [Dictionary<AnyHashable, Any>.Index]) = {
        let keys: [ModelContext.NotificationKey] = [.insertedIdentifiers, .updatedIdentifiers, .deletedIdentifiers]
        var dictionary: [AnyHashable: Any] = [:]
        for key in keys { dictionary[key.rawValue] = [PersistentIdentifier]() }
        return (dictionary, keys.compactMap { dictionary.index(forKey: $0.rawValue) })
    }()

    private var dictionary = Self.template.dictionary

    /// The `userInfo` of a post of `saved`. Call ``clear()`` after the post.
    mutating func filled(with saved: ModelContext.SavedChanges) -> [AnyHashable: Any] {
        let positions = Self.template.positions
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
        for position in Self.template.positions { dictionary.values[position] = none }
    }
}
