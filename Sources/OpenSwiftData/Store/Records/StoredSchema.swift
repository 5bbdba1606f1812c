/// The schema as recorded inside a store file, in the `osd_metadata` table, so that opening the
/// file with different models is detected before anything is written, and so that tools (`osd`)
/// can read a store without its model classes.
///
/// The fields marked "absent in older records" describe the models for tools only; opening a store
/// compares the storage fields alone, and a store whose record lacks them gets them the next time
/// it is opened for writing.
package struct StoredSchema: Codable, Equatable, Sendable {
    /// A property with a column: an attribute, or a to-one relationship's foreign key.
    package struct Attribute: Codable, Equatable, Sendable {
        package var name: String
        package var storage: StorageClass
        package var isOptional: Bool
        /// The Swift type of the values, such as `String`, `[Int]` or `Date` (absent in older records
        /// and for foreign keys).
        package var type: String?
        /// The name in the previous version of the schema, when the model declares one.
        package var originalName: String?
        /// Whether the value is loaded on first access (`.externalStorage`).
        package var isExternal: Bool?
        /// The transformer class of a `.transformable(by: T.self)` attribute (absent in older
        /// records).
        package var transformer: String?
        /// The registered transformer name of a `.transformable(by: "name")` attribute (absent in
        /// older records).
        package var transformerName: String?
        /// Whether a new model starts with a value of its own for a non-optional attribute when it
        /// is given none: the model declares an initial value, or the attribute is `.ephemeral`
        /// (absent in older records, for optional attributes and for foreign keys). A
        /// synchronization server requires a value for an attribute without one in every change
        /// that makes a model.
        package var hasDefault: Bool?
    }

    /// A relationship (absent in older records).
    package struct Relationship: Codable, Equatable, Sendable {
        package var name: String
        package var destination: String
        package var isToMany: Bool
        package var isOptional: Bool
        package var deleteRule: Schema.Relationship.DeleteRule
        /// The inverse relationship's name, declared or inferred.
        package var inverse: String?
        /// The name in the previous version of the schema, when the model declares one.
        package var originalName: String?
        /// Where the store keeps it: `column` (a foreign key in this entity's table), `inverse` (the
        /// inverse's foreign key) or `link` (a link table).
        package var storage: String
        /// The relationship that names the link table (`Entity.property`), for `link` storage.
        package var link: String?
        /// Whether this side is the link table's `owner` column, for `link` storage.
        package var ownsLink: Bool?

        /// The pairs of a `link` relationship.
        package var linkName: LinkName? {
            guard let link, let dot = link.firstIndex(of: ".") else { return nil }
            return LinkName(entity: String(link[..<dot]), property: String(link[link.index(after: dot)...]))
        }
    }

    package struct Entity: Codable, Equatable, Sendable {
        package var name: String
        package var attributes: [Attribute]
        package var uniquenessConstraints: [[String]]
        package var indices: [[String]]
        /// The relationships, in declaration order (absent in older records).
        package var relationships: [Relationship]?
        /// The entity this one inherits from (absent in older records and outside hierarchies).
        package var superentity: String?
    }

    package var entities: [Entity]
    /// The link tables of many-to-many and one-way to-many relationships (absent in older records).
    package var links: [String]?
    /// The version identifier of the schema that wrote the store (absent in older records).
    package var version: Schema.Version?

    package init(_ schema: Schema) {
        version = schema.version
        entities = schema.entities.map(Entity.init)
        links = Array(Set(entities.flatMap { entity in
            (entity.relationships ?? []).filter { $0.storage == "link" && $0.ownsLink == true }.compactMap { $0.linkName?.table }
        })).sorted()
    }

    /// Whether the record describes relationships and attribute types (records written before
    /// tools read them do not).
    package var isDetailed: Bool { entities.allSatisfy { $0.relationships != nil } }

    /// A Swift type's name as source code writes it: `[String]`, `[String: Int]`, `Date?`.
    static func typeName(_ type: any Any.Type) -> String {
        sugared(String(describing: type))
    }

    private static func sugared(_ name: String) -> String {
        guard let open = name.firstIndex(of: "<"), name.hasSuffix(">") else { return name }
        let base = name[..<open]
        let inner = String(name[name.index(after: open)..<name.index(before: name.endIndex)])
        var arguments: [String] = []
        var depth = 0
        var current = ""
        for character in inner {
            switch character {
            case "<": depth += 1
            case ">": depth -= 1
            case "," where depth == 0:
                arguments.append(sugared(current.trimmingCharacters(in: .whitespaces)))
                current = ""
                continue
            default: break
            }
            current.append(character)
        }
        arguments.append(sugared(current.trimmingCharacters(in: .whitespaces)))
        switch (base, arguments.count) {
        case ("Optional", 1): return arguments[0] + "?"
        case ("Array", 1): return "[\(arguments[0])]"
        case ("Dictionary", 2): return "[\(arguments[0]): \(arguments[1])]"
        case ("Set", 1): return "Set<\(arguments[0])>"
        default: return "\(base)<\(arguments.joined(separator: ", "))>"
        }
    }

    /// Human-readable differences from `other` (the models), or an empty list when they match.
    package func differences(from models: StoredSchema) -> [String] {
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
                if previous.storage != attribute.storage || previous.isOptional != attribute.isOptional {
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

    /// The record as stored: JSON with sorted keys.
    package func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}

extension StoredSchema.Entity {
    /// The record of one entity of the models.
    package init(_ entity: Schema.Entity) {
        self.init(
            name: entity.name,
            attributes: entity.fields.indices.compactMap { index in
                let field = entity.fields[index]
                return field.storage.map { storage in
                    let transformer = field.attribute?.transformer
                    return StoredSchema.Attribute(
                        name: field.name, storage: storage, isOptional: field.isOptional,
                        type: field.attribute.map { StoredSchema.typeName($0.valueType) },
                        originalName: field.originalName == field.name ? nil : field.originalName,
                        isExternal: field.isExternal ? true : nil,
                        transformer: transformer.flatMap { $0.isClass ? $0.name : nil },
                        transformerName: transformer.flatMap { $0.isClass ? nil : $0.name },
                        hasDefault: field.attribute == nil || field.isOptional ? nil : field.isEphemeral || Self.declaresInitialValue(entity, property: index))
                }
            },
            uniquenessConstraints: entity.uniquenessConstraints,
            indices: entity.indices,
            relationships: entity.links.sorted { $0.key < $1.key }.map { index, link in
                let field = entity.fields[index]
                var relationship = StoredSchema.Relationship(
                    name: link.name, destination: link.destinationName, isToMany: link.isToMany,
                    isOptional: field.relationship?.isOptional ?? true, deleteRule: link.deleteRule,
                    inverse: field.relationship?.inverseName,
                    originalName: field.originalName == field.name ? nil : field.originalName,
                    storage: "column")
                switch link.storage {
                case .foreignKey: break
                case .inverseForeignKey: relationship.storage = "inverse"
                case .link(let name, let ownerIsSource):
                    relationship.storage = "link"
                    relationship.link = "\(name.entity).\(name.property)"
                    relationship.ownsLink = ownerIsSource
                }
                return relationship
            },
            superentity: entity.superentity?.name)
    }

    /// Whether the model declares an initial value for the property at `index`. A declared value
    /// that cannot be written (a `Codable` value whose encoding throws) still counts: the model
    /// has one.
    private static func declaresInitialValue(_ entity: Schema.Entity, property index: Int) -> Bool {
        let writer = SnapshotWriter(entity: entity, identifierOfKey: { _ in nil })
        do {
            return try entity.modelType._osdWriteDefault(property: index, to: writer, at: Int32(index))
        } catch {
            return true
        }
    }
}
