import OpenSwiftData
import OpenSwiftDataSync

extension SchemaDocument {
    /// The models as the sync server compares and checks them: each model's attributes (with the
    /// storage their types imply) and relationships, a subclass's with its superclasses'.
    ///
    /// - Throws: ``ToolError`` naming an attribute whose type the schema does not say how to store.
    package func syncSchema(version: String = "unversioned") throws -> SyncSchema {
        let byName = Dictionary(models.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        func lineage(_ model: Model) -> [Model] {
            var chain = [model]
            var seen: Set<String> = [model.name]
            while let parent = chain.last?.superclass.flatMap({ byName[$0] }), seen.insert(parent.name).inserted { chain.append(parent) }
            return chain.reversed()
        }
        let entities = try models.map { model in
            var properties: [SyncSchema.Property] = []
            var unique: [[String]] = []
            for ancestor in lineage(model) {
                unique += ancestor.attributes.filter { $0.unique == true }.map { [$0.name] } + (ancestor.unique ?? [])
                for attribute in ancestor.attributes {
                    properties.append(SyncSchema.Property(
                        name: attribute.name, kind: try Self.storage(of: attribute, in: ancestor).rawValue, destination: nil,
                        isOptional: attribute.isOptional,
                        requiresValue: attribute.isOptional || attribute.default != nil ? false : attribute.hasDefault.map { !$0 }))
                }
                for relationship in ancestor.relationships {
                    properties.append(SyncSchema.Property(
                        name: relationship.name, kind: relationship.isToMany ? "toMany" : "toOne", destination: relationship.destination,
                        isOptional: true, deleteRule: relationship.deleteRule, inverse: relationship.inverse))
                }
            }
            return SyncSchema.Entity(name: model.name, properties: properties, superentity: model.superclass, unique: unique.isEmpty ? nil : unique)
        }
        return SyncSchema(entities: entities, version: version)
    }

    private static func storage(of attribute: Attribute, in model: Model) throws -> StorageClass {
        if attribute.transformer != nil || attribute.transformerName != nil { return .blob }
        if let storage = AttributeType.storage(of: attribute.baseType) { return storage }
        if attribute.codable == true { return .json }
        throw ToolError("\(model.name).\(attribute.name) has the type \(attribute.type), which the schema does not say how to store (mark a Codable type of your own \"codable\": true)")
    }
}
