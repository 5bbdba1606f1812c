/// The model a store written by Apple's Core Data or SwiftData describes itself with: the
/// `NSManagedObjectModel` cached in its `Z_MODELCACHE` table, read without Apple's frameworks
/// (raw DEFLATE, a binary property list, a keyed archive).
package struct AppleModel: Equatable, Sendable {
    /// An attribute's type, by Core Data's attribute-type code.
    package enum AttributeType: Equatable, Sendable {
        case integer16, integer32, integer64, decimal, double, float, string, boolean, date, binary, uuid, uri
        case transformable, objectID, composite
        /// A code this reader does not know, kept for messages.
        case unknown(Int64)

        init(code: Int64) {
            switch code {
            case 100: self = .integer16
            case 200: self = .integer32
            case 300: self = .integer64
            case 400: self = .decimal
            case 500: self = .double
            case 600: self = .float
            case 700: self = .string
            case 800: self = .boolean
            case 900: self = .date
            case 1000: self = .binary
            case 1100: self = .uuid
            case 1200: self = .uri
            case 1800: self = .transformable
            case 2000: self = .objectID
            case 2100: self = .composite
            default: self = .unknown(code)
            }
        }

        /// The Swift type a value of the attribute reads as.
        package var swiftType: String {
            switch self {
            case .integer16, .integer32, .integer64: "Int"
            case .decimal: "Decimal"
            case .double: "Double"
            case .float: "Float"
            case .string: "String"
            case .boolean: "Bool"
            case .date: "Date"
            case .binary, .transformable, .objectID: "Data"
            case .uuid: "UUID"
            case .uri: "URL"
            case .composite: "JSON"
            case .unknown: "Data"
            }
        }
    }

    package struct Attribute: Equatable, Sendable {
        package var name: String
        package var type: AttributeType
        package var isOptional: Bool
        /// Whether Core Data may keep the value in a file beside the store.
        package var allowsExternalStorage: Bool
        /// The value transformer's name, for a transformable attribute.
        package var transformerName: String?
        /// The fields of a composite attribute (SwiftData's `Codable` struct), each stored in a
        /// column of its own; empty for any other attribute.
        package var elements: [Attribute] = []

        /// The attribute's stored fields with their paths within it: the attribute itself, or a
        /// composite's fields, nested ones flattened.
        package var leaves: [(path: [String], attribute: Attribute)] {
            guard case .composite = type else { return [([], self)] }
            return elements.flatMap { element in element.leaves.map { ([element.name] + $0.path, $0.attribute) } }
        }
    }

    package struct Relationship: Equatable, Sendable {
        package var name: String
        package var destination: String
        package var inverse: String?
        package var isToMany: Bool
        package var isOrdered: Bool
        package var isOptional: Bool
        /// Core Data's delete rule: 0 no action, 1 nullify, 2 cascade, 3 deny.
        package var deleteRule: Int64
    }

    package struct Entity: Equatable, Sendable {
        package var name: String
        package var superentity: String?
        package var attributes: [Attribute]
        package var relationships: [Relationship]
        /// The uniqueness constraints, each a list of property names.
        package var uniquenessConstraints: [[String]]
    }

    /// The entities, by name.
    package var entities: [Entity]

    /// Why a store's model could not be read.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Reads the model from a `Z_MODELCACHE` value: raw DEFLATE of a keyed archive.
    package init(modelCache: [UInt8]) throws(Failure) {
        let archive: KeyedArchive
        do {
            archive = try KeyedArchive(try BinaryPropertyList.parse(try Inflate.decompress(modelCache, limit: 16 << 20)))
        } catch let error as Inflate.Failure {
            throw Failure(description: "the cached model does not inflate: \(error)")
        } catch let error as BinaryPropertyList.Failure {
            throw Failure(description: "the cached model is not a property list: \(error)")
        } catch {
            throw Failure(description: "the cached model is not a keyed archive: \(error)")
        }
        try self.init(archive)
    }

    /// Reads the model from the archive of an `NSManagedObjectModel`.
    package init(_ archive: KeyedArchive) throws(Failure) {
        guard archive.className(of: archive.root) == "NSManagedObjectModel" else {
            throw Failure(description: "the archive holds a \(archive.className(of: archive.root) ?? "value of no class"), not a managed object model")
        }
        // NSEntities is a dictionary of a known-keys kind: its entities are in `values`, or in
        // NS.objects for a plain dictionary.
        guard let entitiesReference = archive.reference("NSEntities", of: archive.root) else { throw Failure(description: "a model without entities") }
        var references = archive.elements(of: archive.reference("values", of: entitiesReference))
        if references.isEmpty { references = archive.entries(of: entitiesReference).map(\.value) }
        var entities: [Entity] = []
        for reference in references where archive.className(of: reference) == "NSEntityDescription" {
            entities.append(try Self.entity(reference, in: archive))
        }
        guard !entities.isEmpty else { throw Failure(description: "a model without entities") }
        self.entities = entities.sorted { $0.name < $1.name }
    }

    /// An attribute description, with the fields of a composite one (nested at most 8 deep).
    private static func attribute(_ property: Int, named name: String, of entity: String, in archive: KeyedArchive, depth: Int) throws(Failure) -> Attribute {
        let code = archive.value("NSAttributeType", of: property)?.integer ?? 0
        var attribute = Attribute(
            name: name, type: AttributeType(code: code), isOptional: archive.value("NSIsOptional", of: property)?.bool ?? false,
            allowsExternalStorage: archive.value("NSAllowsExternalBinaryDataStorage", of: property)?.bool ?? false,
            transformerName: archive.string("NSValueTransformerName", of: property))
        guard case .composite = attribute.type else { return attribute }
        guard depth < 8 else { throw Failure(description: "\(entity).\(name) nests composite attributes more than 8 deep") }
        // The fields are the attribute descriptions of the array the composite holds, whatever
        // key the archive files it under.
        for reference in archive.referencedArrays(of: property) {
            let fields = archive.elements(of: reference)
            guard !fields.isEmpty, fields.allSatisfy({ ["NSAttributeDescription", "NSCompositeAttributeDescription"].contains(archive.className(of: $0)) }) else { continue }
            for field in fields {
                guard let fieldName = archive.string("NSPropertyName", of: field) else { throw Failure(description: "a field of \(entity).\(name) has no name") }
                attribute.elements.append(try self.attribute(field, named: fieldName, of: entity, in: archive, depth: depth + 1))
            }
            break
        }
        guard !attribute.elements.isEmpty else { throw Failure(description: "\(entity).\(name) is a composite attribute without fields") }
        return attribute
    }

    private static func entity(_ reference: Int, in archive: KeyedArchive) throws(Failure) -> Entity {
        guard let name = archive.string("NSEntityName", of: reference) else { throw Failure(description: "an entity without a name") }
        let superentity = archive.reference("NSSuperentity", of: reference).flatMap { archive.string("NSEntityName", of: $0) }
        var attributes: [Attribute] = []
        var relationships: [Relationship] = []
        for (key, property) in archive.entries(of: archive.reference("NSProperties", of: reference)) {
            guard let propertyName = archive.text(key) ?? archive.string("NSPropertyName", of: property) else { continue }
            // A transient property has no column: nothing of it is stored.
            if archive.value("NSIsTransient", of: property)?.bool == true { continue }
            let isOptional = archive.value("NSIsOptional", of: property)?.bool ?? false
            switch archive.className(of: property) {
            case "NSAttributeDescription", "NSCompositeAttributeDescription":
                attributes.append(try attribute(property, named: propertyName, of: name, in: archive, depth: 0))
            case "NSRelationshipDescription":
                guard let destination = archive.string("_NSDestinationEntityName", of: property)
                    ?? archive.reference("NSDestinationEntity", of: property).flatMap({ archive.string("NSEntityName", of: $0) })
                else { throw Failure(description: "\(name).\(propertyName) names no destination") }
                let inverse = archive.string("_NSInverseRelationshipName", of: property)
                    ?? archive.reference("NSInverseRelationship", of: property).flatMap { archive.string("NSPropertyName", of: $0) }
                let maximum = archive.value("NSMaxCount", of: property)?.integer ?? 0
                relationships.append(Relationship(
                    name: propertyName, destination: destination, inverse: inverse, isToMany: maximum != 1,
                    isOrdered: archive.value("NSIsOrdered", of: property)?.bool ?? false, isOptional: isOptional,
                    deleteRule: archive.value("NSDeleteRule", of: property)?.integer ?? 1))
            default:
                continue   // fetched properties and expressions hold no stored data
            }
        }
        var uniqueness: [[String]] = []
        for tuple in archive.elements(of: archive.reference("NSUniqueTuples", of: reference)) {
            let names = archive.elements(of: tuple).compactMap { archive.text($0) ?? archive.string("NSPropertyName", of: $0) }
            if !names.isEmpty { uniqueness.append(names) }
        }
        return Entity(
            name: name, superentity: superentity, attributes: attributes.sorted { $0.name < $1.name },
            relationships: relationships.sorted { $0.name < $1.name }, uniquenessConstraints: uniqueness)
    }
}
