/// Where a model lives: its entity's name and its store's identifier, shared by every model of
/// the entity that a context manages. Generated storage holds it; not API.
public final class _ModelLocation: Sendable {
    /// The name of the model's entity.
    let entityName: String
    /// The identifier of the store that holds the model.
    let storeIdentifier: String?

    init(entityName: String, storeIdentifier: String?) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
    }
}
