/// The schema as recorded inside a store file, in the `osd_metadata` table, so that opening the
/// file with different models is detected before anything is written.
struct StoredSchema: Codable, Equatable {
    struct Attribute: Codable, Equatable {
        var name: String
        var storage: StorageClass
        var isOptional: Bool
    }

    struct Entity: Codable, Equatable {
        var name: String
        var attributes: [Attribute]
        var uniquenessConstraints: [[String]]
        var indices: [[String]]
    }

    var entities: [Entity]
    /// The link tables of many-to-many and one-way to-many relationships (absent in older records).
    var links: [String]?
    /// The version identifier of the schema that wrote the store (absent in older records).
    var version: Schema.Version?

    init(_ schema: Schema) {
        version = schema.version
        entities = schema.entities.map { entity in
            Entity(
                name: entity.name,
                attributes: entity.fields.compactMap { field in
                    field.storage.map { Attribute(name: field.name, storage: $0, isOptional: field.isOptional) }
                },
                uniquenessConstraints: entity.uniquenessConstraints,
                indices: entity.indices)
        }
        links = Array(Set(schema.entities.flatMap { TableLayout.ownedLinkTables(of: $0) })).sorted()
    }

    /// Human-readable differences from `other` (the models), or an empty list when they match.
    func differences(from models: StoredSchema) -> [String] {
        var result: [String] = []
        let stored = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for entity in models.entities {
            guard let old = stored[entity.name] else {
                result.append("model \(entity.name) is not in the store")
                continue
            }
            let oldAttributes = Dictionary(old.attributes.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
            for attribute in entity.attributes {
                guard let previous = oldAttributes[attribute.name] else {
                    result.append("\(entity.name).\(attribute.name) is new")
                    continue
                }
                if previous != attribute {
                    result.append("\(entity.name).\(attribute.name) changed from \(previous.storage)\(previous.isOptional ? "?" : "") to \(attribute.storage)\(attribute.isOptional ? "?" : "")")
                }
            }
            for attribute in old.attributes where !entity.attributes.contains(where: { $0.name == attribute.name }) {
                result.append("\(entity.name).\(attribute.name) was removed")
            }
            if old.uniquenessConstraints != entity.uniquenessConstraints {
                result.append("\(entity.name)'s uniqueness constraints changed")
            }
            if old.indices != entity.indices { result.append("\(entity.name)'s indexes changed") }
        }
        if (links ?? []) != (models.links ?? []) { result.append("the relationships' link tables changed") }
        return result
    }

    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
