/// What makes reaching a context's entities cheap: the entities of the model classes used last,
/// and where each entity's models live (``_ModelLocation``, one object shared by all of them).
struct ModelLookups {
    /// The entities of the two model classes used last (a parent and the children appended to
    /// it), so that runs of inserts and relationship changes skip the schema lookup.
    var recentEntities: (Schema.Entity?, Schema.Entity?)
    /// Where the models of each entity live.
    var locations: [ObjectIdentifier: _ModelLocation] = [:]
    /// The location used last.
    var lastLocation: (entity: ObjectIdentifier, location: _ModelLocation)?
    /// The entity and identity map that decoding a to-one relationship used last. (An entity's
    /// identity map is made once and kept for the context's life.)
    var lastRelated: (entity: Schema.Entity, models: RegisteredModels)?
}
