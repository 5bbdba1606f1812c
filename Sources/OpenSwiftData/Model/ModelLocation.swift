/// Where a model lives: its entity's name and its store's identifier, shared by every model of
/// the entity that a context manages. Generated storage holds it; not API.
public final class _ModelLocation: Sendable {
    /// The name of the model's entity.
    let entityName: String
    /// The identifier of the store that holds the model.
    let storeIdentifier: String?

    /// The hash of the two names, which identifiers of the location combine instead of hashing
    /// the strings each time.
    let namesHash: Int
    /// The keys of the store, when it is a custom data store that chose its own: held here so
    /// that the table lives as long as any model or identifier of the store.
    let keyTable: ExternalKeyTable?

    /// The location of `entityName` in the store `storeIdentifier`, with the store's table of
    /// keys when one is in use.
    convenience init(entityName: String, storeIdentifier: String?) {
        self.init(entityName: entityName, storeIdentifier: storeIdentifier, keyTable: storeIdentifier.flatMap(ExternalKeyTable.existingTable(for:)))
    }

    init(entityName: String, storeIdentifier: String?, keyTable: ExternalKeyTable?) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
        self.keyTable = keyTable
        var hasher = Hasher()
        hasher.combine(storeIdentifier)
        hasher.combine(entityName)
        namesHash = hasher.finalize()
    }

    /// The location of `entityName` in the store `storeIdentifier`: `previous` when it names
    /// them, or a new one. Changes come in runs of one entity, so a loop that keeps the last
    /// location makes one per run.
    static func reusing(_ previous: _ModelLocation?, entityName: String, storeIdentifier: String?) -> _ModelLocation {
        if let previous, previous.entityName == entityName, previous.storeIdentifier == storeIdentifier { return previous }
        return _ModelLocation(entityName: entityName, storeIdentifier: storeIdentifier)
    }

    /// Whether `other` names the same entity in the same store.
    func names(_ other: _ModelLocation) -> Bool {
        namesHash == other.namesHash && entityName == other.entityName && storeIdentifier == other.storeIdentifier
    }
}
