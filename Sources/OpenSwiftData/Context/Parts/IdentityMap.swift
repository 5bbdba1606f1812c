/// The models a context holds, one instance per stored row, by entity and key.
struct IdentityMap {
    /// The registered (saved) models, by entity name and primary key.
    var registry: [String: RegisteredModels] = [:]
    /// Whether models are held weakly: a stand-in context's (``ContextReference/standIn()``),
    /// which loads for models whose own context was deallocated.
    var holdsWeakly = false

    /// Whether no model is registered, held or orphaned, under any entity.
    var holdsNoModels: Bool {
        registry.values.allSatisfy { $0.models.isEmpty && $0.orphans.isEmpty }
    }

    /// The identity map of one entity, made on first use.
    mutating func models(of entity: Schema.Entity) -> RegisteredModels {
        if let models = registry[entity.name] { return models }
        let models = RegisteredModels(holdsWeakly: holdsWeakly)
        registry[entity.name] = models
        return models
    }

    /// Forgets the model registered for an entity and key (a row deleted, or reloaded elsewhere).
    func forget(entityName: String, key: Int64) {
        registry[entityName]?.remove(key)
    }

    /// The saved model registered for an entity and key, if any.
    func model(entityName: String, key: Int64) -> (any PersistentModel)? {
        registry[entityName]?.model(forKey: key)
    }
}
