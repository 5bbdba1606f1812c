/// Where a store written by Apple's Core Data or SwiftData keeps each entity's rows: one table per
/// class hierarchy (`Z` and the root's name in capitals), rows told apart by their entity number
/// (`Z_ENT`, from `Z_PRIMARYKEY`), a column per attribute and to-one relationship, and for to-many
/// relationships either the inverse's column, a hidden column in the destination's table, or a
/// join table. Column and table names are looked up in the file, not derived alone: Core Data
/// numbers names that would clash.
struct AppleStoreLayout {
    /// One entity's place in the file.
    struct Entity {
        var model: AppleModel.Entity
        /// Its attributes, inherited ones first.
        var attributes: [AppleModel.Attribute]
        /// Its relationships, inherited ones first.
        var relationships: [AppleModel.Relationship]
        var number: Int64
        /// The entity's name and its ancestors', itself first.
        var lineage: [String]
        var table: String
        /// The columns of each attribute, in ``attributes`` order: one, or a composite
        /// attribute's, one per field in ``AppleModel/Attribute/leaves`` order.
        var attributeColumns: [[String]]
        /// The to-one relationships and the columns of their targets' keys.
        var foreignKeys: [(relationship: AppleModel.Relationship, column: String)]
        /// The to-many relationships whose pairs this side lists, and how to read them: the SQL
        /// selecting the related keys of one row (its key bound first).
        var toManyQueries: [(relationship: AppleModel.Relationship, sql: String)]
    }

    var entities: [String: Entity]
    /// The schema as OpenSwiftData's tools read it.
    var schema: StoredSchema
    /// The attributes this reader leaves out, each with why (`Entity.property`, reason): any
    /// whose column (or a composite's field's column) it cannot find. Reading the rest is still exact; `verify`
    /// reports these, and an import refuses to run unless they are ignored on purpose.
    var unreadable: [(property: String, reason: String)] = []

    /// The layout of `model` in a file whose tables and columns `columns` lists, and whose entity
    /// numbers `numbers` gives.
    init(model: AppleModel, numbers: [String: Int64], columns: [String: [String]]) throws(AppleModel.Failure) {
        let byName = Dictionary(model.entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        func lineage(_ entity: AppleModel.Entity) -> [AppleModel.Entity] {
            var chain = [entity]
            var seen: Set<String> = [entity.name]
            while let parent = chain[0].superentity.flatMap({ byName[$0] }), seen.insert(parent.name).inserted { chain.insert(parent, at: 0) }
            return chain
        }
        func tableName(_ entity: AppleModel.Entity) -> String { "Z" + lineage(entity)[0].name.uppercased() }
        func quote(_ name: String) -> String { SQL.quote(name) }

        var entities: [String: Entity] = [:]
        var unreadable: [(property: String, reason: String)] = []
        for entity in model.entities {
            guard let number = numbers[entity.name] else { throw AppleModel.Failure(description: "\(entity.name) has no entity number in Z_PRIMARYKEY") }
            let table = tableName(entity)
            guard let tableColumns = columns[table] else { throw AppleModel.Failure(description: "\(entity.name)'s table \(table) is not in the file") }
            let chain = lineage(entity)
            // An entity's archived properties may repeat those it inherits: each name once, the
            // ancestor's first.
            var attributeNames = Set<String>(), relationshipNames = Set<String>()
            let declared = chain.flatMap(\.attributes).filter { attributeNames.insert($0.name).inserted }
            let relationships = chain.flatMap(\.relationships).filter { relationshipNames.insert($0.name).inserted }
            var used = Set<String>()
            /// The column of a property: its name in capitals after `Z`, or that with a number
            /// Core Data added to tell clashing names apart.
            func column(_ name: String) -> String? {
                let base = "Z" + name.uppercased()
                let found = ([base] + (1...9).map { base + String($0) }).first { tableColumns.contains($0) && !used.contains($0) }
                if let found { used.insert(found) }
                return found
            }
            var attributes: [AppleModel.Attribute] = []
            var attributeColumns: [[String]] = []
            for attribute in declared {
                let property = "\(entity.name).\(attribute.name)"
                // A composite (SwiftData's Codable struct) keeps each field in a column named
                // after the field.
                let leaves = attribute.leaves
                let found = leaves.map { column($0.attribute.name) }
                guard found.allSatisfy({ $0 != nil }) else {
                    let missing = zip(leaves, found).filter { $1 == nil }.map { $0.0.path.joined(separator: ".") }
                    unreadable.append((property, "no column of \(table) holds " + (attribute.elements.isEmpty ? "it" : "its \(missing.joined(separator: ", "))")))
                    continue
                }
                attributes.append(attribute)
                attributeColumns.append(found.compactMap { $0 })
            }
            var foreignKeys: [(AppleModel.Relationship, String)] = []
            var toMany: [(AppleModel.Relationship, String)] = []
            for relationship in relationships {
                guard let destination = byName[relationship.destination], let destinationNumber = numbers[destination.name] else {
                    throw AppleModel.Failure(description: "\(entity.name).\(relationship.name) leads to \(relationship.destination), which the model lacks")
                }
                let destinationTable = tableName(destination)
                if !relationship.isToMany {
                    guard let found = column(relationship.name) else {
                        throw AppleModel.Failure(description: "\(entity.name).\(relationship.name) has no column in \(table)")
                    }
                    foreignKeys.append((relationship, found))
                    continue
                }
                let inverse = relationship.inverse.flatMap { name in destination.relationships.first { $0.name == name } }
                    ?? relationship.inverse.flatMap { name in lineage(destination).flatMap(\.relationships).first { $0.name == name } }
                if let inverse, !inverse.isToMany {
                    // The inverse's column in the destination's table holds this row's key.
                    // An ordered relationship keeps each row's place in `Z_FOK_` and the column's name.
                    let inverseColumn = "Z" + inverse.name.uppercased()
                    let order = Self.orderColumn(of: inverseColumn, among: columns[destinationTable] ?? [], isOrdered: relationship.isOrdered)
                    toMany.append((relationship, "SELECT Z_PK FROM \(quote(destinationTable)) WHERE \(quote(inverseColumn)) = ? AND Z_ENT IN \(Self.numbers(of: destination, in: model, numbers: numbers)) ORDER BY \(order.map { quote($0) + ", " } ?? "")Z_PK"))
                } else if let inverse {
                    // Many-to-many: a join table named after one side, with a column per side.
                    let candidates = ["Z_\(number)\(relationship.name.uppercased())", "Z_\(destinationNumber)\(inverse.name.uppercased())"]
                    guard let join = candidates.first(where: { columns[$0] != nil }), let joinColumns = columns[join] else {
                        throw AppleModel.Failure(description: "\(entity.name).\(relationship.name) has no join table (\(candidates.joined(separator: " or ")))")
                    }
                    // A column is named after the relationship whose keys it holds, with a number
                    // appended when that name is taken elsewhere (`Z_24USERS1`).
                    func joinColumn(_ entityNumber: Int64, _ name: String) -> String? {
                        let base = "Z_\(entityNumber)\(name.uppercased())"
                        return joinColumns.first { $0 == base || ($0.hasPrefix(base) && $0.dropFirst(base.count).allSatisfy(\.isNumber)) }
                    }
                    let own = joinColumn(number, inverse.name), other = joinColumn(destinationNumber, relationship.name)
                    guard let own, let other, own != other else { throw AppleModel.Failure(description: "\(join) lacks the columns of \(entity.name).\(relationship.name)") }
                    let order = Self.orderColumn(of: other, among: joinColumns, isOrdered: relationship.isOrdered)
                    toMany.append((relationship, "SELECT \(quote(other)) FROM \(quote(join)) WHERE \(quote(own)) = ? ORDER BY \(order.map { quote($0) + ", " } ?? "")\(quote(other))"))
                } else {
                    // No inverse: a hidden column in the destination's table holds this row's key.
                    let hidden = "Z\(number)\(relationship.name.uppercased())"
                    guard columns[destinationTable]?.contains(hidden) == true else {
                        throw AppleModel.Failure(description: "\(entity.name).\(relationship.name) has no column \(hidden) in \(destinationTable)")
                    }
                    toMany.append((relationship, "SELECT Z_PK FROM \(quote(destinationTable)) WHERE \(quote(hidden)) = ? ORDER BY Z_PK"))
                }
            }
            entities[entity.name] = Entity(
                model: entity, attributes: attributes, relationships: relationships, number: number,
                lineage: chain.reversed().map(\.name), table: table,
                attributeColumns: attributeColumns, foreignKeys: foreignKeys, toManyQueries: toMany)
        }
        self.entities = entities
        self.unreadable = unreadable.sorted { $0.property < $1.property }
        schema = Self.storedSchema(model, entities: entities)
    }

    /// The column that keeps the places of an ordered relationship's rows in their lists: `Z_FOK_`
    /// and the name of `column` without its `Z` or `Z_`, when the table has it. `column` is the
    /// inverse's column in the destination's table (`ZMESSAGE` → `Z_FOK_MESSAGE`), or the join
    /// table's column of the listed rows (`Z_24USERS` → `Z_FOK_24USERS`).
    private static func orderColumn(of column: String, among columns: [String], isOrdered: Bool) -> String? {
        guard isOrdered else { return nil }
        let name = "Z_FOK_" + (column.hasPrefix("Z_") ? column.dropFirst(2) : column.dropFirst())
        return columns.contains(name) ? name : nil
    }

    /// Checks that each conversion names a transformable or binary attribute (`Entity.property`,
    /// the entity declaring it or one inheriting it), and records the storage its values take in
    /// ``schema``; returns the conversions by every entity that has the attribute.
    mutating func convert(_ conversions: [String: AppleValueConversion], path: String) throws -> [String: AppleValueConversion] {
        var byProperty: [String: AppleValueConversion] = [:]
        for (property, conversion) in conversions.sorted(by: { $0.key < $1.key }) {
            let parts = property.split(separator: ".", maxSplits: 1).map(String.init)
            let holders = entities.values.filter { parts.count == 2 && $0.lineage.contains(parts[0]) }
            guard let attribute = holders.lazy.compactMap({ $0.attributes.first { $0.name == parts[1] } }).first else {
                throw SwiftDataError(.schemaMismatch, reason: "\(path): a conversion names \(property), which is no attribute of the store's models (name it Entity.property).")
            }
            switch attribute.type {
            case .transformable, .binary, .unknown: break
            default:
                throw SwiftDataError(.schemaMismatch, reason: "\(path): a conversion names \(property), a \(attribute.type.swiftType) attribute; only transformable and binary attributes are converted.")
            }
            byProperty[property] = conversion
            for holder in holders {
                guard let position = schema.entities.firstIndex(where: { $0.name == holder.model.name }),
                      let index = schema.entities[position].attributes.firstIndex(where: { $0.name == parts[1] }) else { continue }
                schema.entities[position].attributes[index].storage = conversion.storage
                schema.entities[position].attributes[index].type = (conversion.storage == .json ? "JSON" : "Data") + (attribute.isOptional ? "?" : "")
            }
        }
        return byProperty
    }

    /// The entity numbers of an entity and its sub-entities, as an SQL list.
    private static func numbers(of entity: AppleModel.Entity, in model: AppleModel, numbers: [String: Int64]) -> String {
        var names: Set<String> = [entity.name]
        var grew = true
        while grew {
            grew = false
            for candidate in model.entities where candidate.superentity.map(names.contains) == true && names.insert(candidate.name).inserted { grew = true }
        }
        return "(" + names.compactMap { numbers[$0] }.sorted().map(String.init).joined(separator: ", ") + ")"
    }

    /// The schema OpenSwiftData's tools read: each entity's attributes with their storage and
    /// Swift types, its to-one relationships as foreign keys, and its to-many relationships as
    /// pairs it lists (``toManyQueries``).
    private static func storedSchema(_ model: AppleModel, entities: [String: Entity]) -> StoredSchema {
        var schema = StoredSchema(Schema([]))
        schema.version = nil
        schema.entities = model.entities.compactMap { modelEntity in
            guard let entity = entities[modelEntity.name] else { return nil }
            var attributes = entity.attributes.map { attribute in
                StoredSchema.Attribute(
                    name: attribute.name, storage: attribute.type.storage, isOptional: attribute.isOptional,
                    type: attribute.type.swiftType + (attribute.isOptional ? "?" : ""), originalName: nil,
                    isExternal: nil, transformer: nil, transformerName: attribute.transformerName)
            }
            var relationships: [StoredSchema.Relationship] = []
            for (relationship, _) in entity.foreignKeys {
                attributes.append(StoredSchema.Attribute(name: relationship.name, storage: .integer, isOptional: true))
                relationships.append(stored(relationship, storage: "column"))
            }
            for (relationship, _) in entity.toManyQueries {
                relationships.append(stored(relationship, storage: "link"))
            }
            return StoredSchema.Entity(
                name: modelEntity.name, attributes: attributes, uniquenessConstraints: modelEntity.uniquenessConstraints, indices: [],
                relationships: relationships, superentity: modelEntity.superentity)
        }
        schema.links = []
        return schema
    }

    private static func stored(_ relationship: AppleModel.Relationship, storage: String) -> StoredSchema.Relationship {
        let rule: Schema.Relationship.DeleteRule = switch relationship.deleteRule {
        case 0: .noAction
        case 2: .cascade
        case 3: .deny
        default: .nullify
        }
        return StoredSchema.Relationship(
            name: relationship.name, destination: relationship.destination, isToMany: relationship.isToMany,
            isOptional: relationship.isOptional, deleteRule: rule, inverse: relationship.inverse, originalName: nil,
            // No OpenSwiftData link table: the pairs are in Core Data's own join table or column.
            storage: storage, link: nil, ownsLink: storage == "link" ? true : nil)
    }
}

extension AppleModel.AttributeType {
    /// How OpenSwiftData's tools treat the attribute's values.
    var storage: StorageClass {
        switch self {
        case .integer16, .integer32, .integer64, .boolean: .integer
        case .double, .float: .real
        case .string, .uri: .text
        case .date: .date
        case .uuid: .uuid
        case .decimal: .decimal
        case .composite: .json
        case .binary, .transformable, .objectID, .unknown: .blob
        }
    }
}
