import OpenSwiftData

/// `osd generate models --from-apple`: `@Model` classes for the model a store Apple's Core Data or
/// SwiftData wrote describes itself with (`Z_MODELCACHE`), so a team can start from what is on the
/// device. Each composite attribute (a SwiftData `Codable` struct) becomes a `Codable` struct of
/// its fields, named after its model and property (`TodoPeople`), so that the classes import the
/// store's values as they are.
package struct AppleModelsGenerator {
    let path: String
    let module: String

    package init(appleStoreAt path: String, module: String) {
        self.path = path
        self.module = module
    }

    /// The Swift source: the classes, then the structs of composite attributes.
    package func source(generatedFrom name: String) throws -> String {
        guard try AppleStoreFile.isAppleStore(at: path) else {
            throw ToolError("\(path) is not a store Apple's Core Data or SwiftData wrote (it has no Z_METADATA and Z_PRIMARYKEY tables).")
        }
        let file = try AppleStoreFile(path: path)
        var document = SchemaDocument(file.schema)
        var structs: [String] = []
        for entity in file.model.entities {
            for attribute in entity.attributes where !attribute.elements.isEmpty {
                let type = entity.name + Self.capitalized(attribute.name)
                guard let model = document.models.firstIndex(where: { $0.name == entity.name }),
                      let index = document.models[model].attributes.firstIndex(where: { $0.name == attribute.name }) else { continue }
                document.models[model].attributes[index].type = type
                document.models[model].attributes[index].codable = true
                structs += Self.structs(named: type, fields: attribute.elements)
            }
        }
        let classes = ModelsGenerator(schema: document, module: module).source(generatedFrom: name)
        return structs.isEmpty ? classes : classes + "\n" + structs.joined(separator: "\n")
    }

    /// A `Codable` struct with a stored property per field, and the structs of nested composites.
    private static func structs(named name: String, fields: [AppleModel.Attribute]) -> [String] {
        var nested: [String] = []
        var lines = ["struct \(name): Codable, Hashable, Sendable {"]
        for field in fields {
            var type = field.type.swiftType
            if !field.elements.isEmpty {
                type = name + capitalized(field.name)
                nested += structs(named: type, fields: field.elements)
            }
            lines.append("    var \(field.name): \(type)\(field.isOptional ? "?" : "")")
        }
        lines.append("}")
        return [lines.joined(separator: "\n") + "\n"] + nested
    }

    private static func capitalized(_ name: String) -> String {
        name.prefix(1).uppercased() + name.dropFirst()
    }
}
