import OpenSwiftData

extension SchemaDocument {
    /// The schema a store records, in the brief's format. A subclass lists only what it adds to
    /// its superclass. Records written before relationships and types were recorded give each
    /// attribute the type its storage implies and no relationships.
    init(_ stored: StoredSchema) {
        models = stored.entities.map { entity in
            let inherited = Set(entity.superentity.flatMap { name in stored.entities.first { $0.name == name } }
                .map { $0.plainAttributes.map(\.name) + $0.recordedRelationships.map(\.name) } ?? [])
            let single = Set(entity.uniquenessConstraints.filter { $0.count == 1 }.map { $0[0] })
            let indexed = Set(entity.indices.filter { $0.count == 1 }.map { $0[0] })
            let attributes = entity.plainAttributes.filter { !inherited.contains($0.name) }.map { attribute in
                let type = StoredSchema.Entity.baseType(of: attribute)
                let isTransformed = attribute.transformer != nil || attribute.transformerName != nil
                return Attribute(
                    name: attribute.name, type: type,
                    optional: attribute.isOptional ? true : nil,
                    unique: single.contains(attribute.name) ? true : nil,
                    indexed: indexed.contains(attribute.name) ? true : nil,
                    originalName: attribute.originalName, externalStorage: attribute.isExternal,
                    // An unknown type kept as bytes was transformed by a transformer the record
                    // predates naming: not `codable`, so that the schema asks for its transformer.
                    codable: AttributeType.storage(of: type) == nil && !isTransformed && attribute.storage != .blob ? true : nil,
                    transformer: attribute.transformer, transformerName: attribute.transformerName,
                    hasDefault: attribute.isOptional ? nil : attribute.hasDefault)
            }
            let relationships = entity.recordedRelationships.filter { !inherited.contains($0.name) }.map { relationship in
                Relationship(
                    name: relationship.name, destination: relationship.destination, toMany: relationship.isToMany ? true : nil,
                    deleteRule: relationship.deleteRule.rawValue, inverse: relationship.inverse, originalName: relationship.originalName)
            }
            let compoundUnique = entity.uniquenessConstraints.filter { $0.count > 1 }
            let compoundIndexes = entity.indices.filter { $0.count > 1 }
            return Model(
                name: entity.name, superclass: entity.superentity, attributes: attributes, relationships: relationships,
                unique: compoundUnique.isEmpty ? nil : compoundUnique, indexes: compoundIndexes.isEmpty ? nil : compoundIndexes)
        }
    }
}

extension SchemaDocument {
    /// The schema a store records: a store file's, or, for a PostgreSQL URL, that of the
    /// configuration named `name`.
    package init(storeAt path: String, name: String = "default") throws {
        self.init(try StoreArgument.open(path, name: name).schema)
    }

    /// A schema file, or the schema of a store: a file (told apart by the SQLite header) or a
    /// PostgreSQL URL, whose configuration is the one named `name`.
    package static func load(fromSchemaOrStore path: String, name: String = "default") throws -> SchemaDocument {
        if try StoreArgument.recognizes(path) { return try SchemaDocument(storeAt: path, name: name) }
        // Only a sniff of the header, for the message: a file that cannot be read is reported by
        // `load(from:)`, which reads it again and throws with the path.
        let header = FileHandle(forReadingAtPath: path).flatMap { try? $0.read(upToCount: 16) } ?? Data()
        do {
            return try load(from: path)
        } catch let error as ToolError where !header.isEmpty && header.first != UInt8(ascii: "{") {
            throw ToolError("\(path) is not an SQLite database, and not a schema file either (\(error.message)).")
        }
    }
}
