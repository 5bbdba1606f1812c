/// Which configuration's store holds each entity, when a container has several configurations.
///
/// A configuration with a schema holds the entities of that schema; one configuration without a
/// schema holds every entity no other configuration lists. An entity listed in two configurations,
/// or in none, is an error, and so is a relationship or a class hierarchy that would span two
/// stores: a store cannot keep a reference to a row of another store.
struct StoreRouting {
    /// The position of each entity's configuration.
    private(set) var slot: [String: Int] = [:]

    init(schema: Schema, configurations: [StoreSlot.Traits]) throws {
        for (index, configuration) in configurations.enumerated() {
            for entity in configuration.schema?.entities ?? [] {
                if let other = slot[entity.name], other != index {
                    throw SwiftDataError(.duplicateConfiguration, reason: "\(entity.name) is listed in configurations \(configurations[other].name) and \(configuration.name); list each model in one configuration")
                }
                slot[entity.name] = index
            }
        }
        let open = configurations.indices.filter { configurations[$0].schema == nil }
        for entity in schema.entities where slot[entity.name] == nil {
            guard let only = open.first else {
                throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, reason: "\(entity.name) is in the container's schema but in no configuration's; add it to one configuration's schema")
            }
            guard open.count == 1 else {
                throw SwiftDataError(.duplicateConfiguration, reason: "\(entity.name) is in no configuration's schema and configurations \(open.map { configurations[$0].name }) have none, so it would be in each; give all but one of them a schema")
            }
            slot[entity.name] = only
        }
        for entity in schema.entities {
            let own = slot[entity.name]
            for link in entity.links.values where slot[link.destinationName] != own {
                throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, reason: "\(entity.name).\(link.name) relates to \(link.destinationName), which is stored by another configuration; related models must share a configuration")
            }
            if slot[entity.root.name] != own {
                throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, reason: "\(entity.name) and its superclass \(entity.root.name) are in different configurations; a class hierarchy must share one")
            }
        }
    }
}
