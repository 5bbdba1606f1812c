import Foundation
import OpenSwiftData

/// The models a client or a server synchronizes, as the two compare them: each model's synchronized
/// properties and the kind of value each holds.
///
/// Made from the schema a store records (what `osd schema` prints), so a server needs no model
/// classes. A server serves a client when every property the client synchronizes exists on the
/// server with the same kind (a server may have more: properties and models added since the
/// client was built).
package struct SyncSchema: Codable, Hashable, Sendable {
    /// One synchronized property.
    package struct Property: Codable, Hashable, Sendable {
        package var name: String
        /// The storage class of an attribute (`integer`, `real`, `date`, …), `toOne` or `toMany`.
        package var kind: String
        /// A relationship's destination model.
        package var destination: String?
        package var isOptional: Bool
        /// A relationship's delete rule (`cascade`, `nullify`, …), when the schema records it: a
        /// to-many relationship that cascades carries what a share of its model shares.
        package var deleteRule: String?
        /// A relationship's inverse on the destination model, when it has one.
        package var inverse: String?
        /// Whether a change that makes a model must carry a value for the attribute: it is neither
        /// optional nor given an initial value by the model, so a device could not make the model
        /// without one. `nil` when the schema does not say (a relationship, or a store's record
        /// written before initial values were recorded): no value is required.
        package var requiresValue: Bool?

        package init(
            name: String, kind: String, destination: String?, isOptional: Bool, deleteRule: String? = nil, inverse: String? = nil,
            requiresValue: Bool? = nil
        ) {
            self.name = name
            self.kind = kind
            self.destination = destination
            self.isOptional = isOptional
            self.deleteRule = deleteRule
            self.inverse = inverse
            self.requiresValue = requiresValue
        }
    }

    /// One synchronized model.
    package struct Entity: Codable, Hashable, Sendable {
        package var name: String
        package var properties: [Property]
        /// The model's superclass model, if it has one.
        package var superentity: String?
        /// The model's uniqueness constraints (`.unique`, `#Unique`): the properties whose values
        /// no two rows share. Models created on two devices with the same values end as one.
        package var unique: [[String]]?

        package init(name: String, properties: [Property], superentity: String?, unique: [[String]]? = nil) {
            self.name = name
            self.properties = properties
            self.superentity = superentity
            self.unique = unique
        }
    }

    package var entities: [Entity]
    /// The schema's version (``Schema/version``), for messages.
    package var version: String

    /// A schema of the given models.
    package init(entities: [Entity], version: String) {
        self.entities = entities
        self.version = version
    }

    /// The synchronized shape of a stored schema: its attributes and relationships (a change names
    /// only the side of a relationship its store keeps, which is either).
    package init(_ stored: StoredSchema, excluding excluded: Set<String> = []) {
        version = stored.version.map { "\($0)" } ?? "unversioned"
        entities = stored.entities.filter { !excluded.contains($0.name) }.map { entity in
            // A to-one relationship's key column is recorded among the attributes too.
            let relationships = Set((entity.relationships ?? []).map(\.name))
            var properties = entity.attributes.filter { !relationships.contains($0.name) }.map {
                Property(
                    name: $0.name, kind: $0.storage.rawValue, destination: nil, isOptional: $0.isOptional,
                    requiresValue: $0.isOptional ? false : $0.hasDefault.map { !$0 })
            }
            for relationship in entity.relationships ?? [] {
                properties.append(Property(
                    name: relationship.name, kind: relationship.isToMany ? "toMany" : "toOne", destination: relationship.destination,
                    isOptional: relationship.isOptional, deleteRule: relationship.deleteRule.rawValue, inverse: relationship.inverse))
            }
            return Entity(
                name: entity.name, properties: properties, superentity: entity.superentity,
                unique: entity.uniquenessConstraints.isEmpty ? nil : entity.uniquenessConstraints)
        }
    }

    /// A text that changes whenever the models or their properties do: the models' shape, sorted.
    package var digest: String {
        entities.sorted { $0.name < $1.name }.map { entity in
            entity.name + "(" + entity.properties.sorted { $0.name < $1.name }.map { "\($0.name):\($0.kind)" }.joined(separator: ",") + ")"
        }.joined(separator: ";")
    }

    /// A model by name.
    package func entity(named name: String) -> Entity? { entities.first { $0.name == name } }

    /// Why this (the server's) schema cannot serve a client's, or an empty list when it can: a
    /// model or property of the client's that the server lacks or keeps another way, or a property
    /// the server requires in every new model (``Property/requiresValue``) that the client's model
    /// lacks, so that the models it makes would stop every other device.
    package func problems(serving client: SyncSchema) -> [String] {
        var problems: [String] = []
        for entity in client.entities {
            guard let served = self.entity(named: entity.name) else {
                problems.append("the model \(entity.name) is unknown to the server")
                continue
            }
            let byName = Dictionary(served.properties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            for property in entity.properties {
                guard let mine = byName[property.name] else {
                    problems.append("\(entity.name).\(property.name) is unknown to the server")
                    continue
                }
                if mine.kind != property.kind || mine.destination != property.destination {
                    problems.append("\(entity.name).\(property.name) holds \(property.describedKind) on the client and \(mine.describedKind) on the server")
                }
            }
            let known = Set(entity.properties.map(\.name))
            for property in served.properties where property.requiresValue == true && !known.contains(property.name) {
                problems.append("\(entity.name).\(property.name) is unknown to the client, and the server requires it in every new \(entity.name) (it is neither optional nor given an initial value)")
            }
        }
        return problems
    }

    /// The first property of the model named `entity` that a change making one must carry and
    /// `values` lacks (``Property/requiresValue``), or `nil`.
    package func missingRequiredValue(of entity: String, in values: [String: SyncValue]) -> String? {
        self.entity(named: entity)?.properties.first { $0.requiresValue == true && values[$0.name] == nil }?.name
    }
}

extension SyncSchema.Property {
    /// The kind, in words.
    package var describedKind: String {
        switch kind {
        case "toOne": "a to-one relationship to \(destination ?? "?")"
        case "toMany": "a to-many relationship to \(destination ?? "?")"
        default: "\(kind) values"
        }
    }

    /// Why `value` cannot be this property's, or `nil` when it can.
    package func problem(with value: SyncValue) -> String? {
        if value.isNull { return isOptional || kind == "toOne" ? nil : "is not optional and cannot be null" }
        let expected: Set<String> = switch kind {
        case "toOne": ["reference"]
        case "toMany": ["references"]
        case "integer", "unsignedInteger": ["integer"]
        case "real": ["real"]
        case "date": ["date"]
        case "text": ["text"]
        case "json": ["json", "text"]
        case "uuid": ["uuid"]
        case "blob", "decimal": ["bytes"]
        default: []
        }
        return expected.contains(value.form) ? nil : "holds \(describedKind), not a \(value.form) value"
    }
}
