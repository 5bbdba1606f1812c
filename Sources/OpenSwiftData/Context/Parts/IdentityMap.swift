/// The models a context holds, one instance per stored row, by entity and key, and the lookups
/// that make reaching them cheap: the entities of the model classes used last, and where each
/// entity's models live (``_ModelLocation``, shared by all of them).
struct IdentityMap {
    /// The registered (saved) models, by entity name and primary key.
    var registry: [String: RegisteredModels] = [:]
    /// Whether models are held weakly: a stand-in context's (``ContextReference/standIn()``),
    /// which loads for models whose own context was deallocated.
    var holdsWeakly = false
    /// The entity and identity map that decoding a to-one relationship used last.
    var lastRelatedEntity: (entity: Schema.Entity, models: RegisteredModels)?
    /// The entities of the two model classes used last (a parent and the children appended to
    /// it), so that runs of inserts and relationship changes skip the schema lookup.
    var recentEntities: (Schema.Entity?, Schema.Entity?)
    /// Where the models of each entity live, shared by all of them.
    var locations: [ObjectIdentifier: _ModelLocation] = [:]
    /// The location used last.
    var lastLocation: (entity: ObjectIdentifier, location: _ModelLocation)?

    /// The identity map of one entity, made on first use.
    mutating func models(of entity: Schema.Entity) -> RegisteredModels {
        if let models = registry[entity.name] { return models }
        let models = RegisteredModels(holdsWeakly: holdsWeakly)
        registry[entity.name] = models
        return models
    }

    /// The saved model registered for an entity and key, if any.
    func model(entityName: String, key: Int64) -> (any PersistentModel)? {
        registry[entityName]?.model(forKey: key)
    }
}
