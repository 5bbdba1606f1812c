/// Rows copied from one store into another whose models have the same names, in one transaction
/// of the target: how a store Apple's frameworks wrote is imported into an OpenSwiftData store
/// (`osd import --from-apple`), through the tools' protocol on both sides.
///
/// Models match by name; properties by name, or by the target's `originalName`; relationships by
/// name. Every row of the source is copied with its to-one and to-many relationships; the target's
/// keys are kept from the source when its tables are empty, or new. Anything of the source with no
/// home in the target (a model, a property, a relationship, a value of another type) stops the
/// transfer before anything is written, naming each one, unless it is listed in `ignoring`.
package struct StoreTransfer {
    /// Why a transfer cannot run: every model, property and relationship of the source with no
    /// home in the target, and every target property the source cannot fill.
    package struct Mismatch: Error, CustomStringConvertible {
        package var problems: [String]
        package var description: String { problems.joined(separator: "; ") }
    }

    /// How one model's rows are copied.
    struct ModelPlan {
        var source: ModelTable
        var target: ModelTable
        /// For each target attribute, the source attribute that fills it (`nil`: left `nil`).
        var attributes: [Int?]
        /// For each target foreign key, the source foreign key that fills it.
        var foreignKeys: [Int?]
        /// Source to-many relationships copied as the target's owned link pairs: (source link, target link).
        var links: [(source: Int, target: Int)]
        /// Source to-many relationships whose target keeps them as the inverse's foreign key in
        /// the destination's rows: (source link, destination model, its foreign key).
        var inverseKeys: [(source: Int, destination: String, foreignKey: StoredSchema.Relationship)]
    }

    let plans: [ModelPlan]
    let targetSchema: StoredSchema

    /// Plans a transfer from a source schema to a target schema.
    ///
    /// - Parameter ignoring: Names of models (`Trip`) and properties (`Trip.notes`) of the source
    ///   to leave out on purpose.
    /// - Throws: ``Mismatch`` naming everything that has no home.
    package init(from source: StoredSchema, to target: StoredSchema, ignoring: Set<String> = []) throws(Mismatch) {
        var problems: [String] = []
        var plans: [ModelPlan] = []
        let targets = Dictionary(target.entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for entity in source.entities where !ignoring.contains(entity.name) {
            guard let home = targets[entity.name] else {
                problems.append("model \(entity.name) is not among the app's models")
                continue
            }
            let from = ModelTable(entity), to = ModelTable(home)
            func target(named name: String, in names: [(name: String, original: String?)]) -> Int? {
                names.firstIndex { $0.name == name } ?? names.firstIndex { $0.original == name }
            }
            var attributes = [Int?](repeating: nil, count: to.attributes.count)
            for (index, attribute) in from.attributes.enumerated() where !ignoring.contains("\(entity.name).\(attribute.name)") {
                guard let position = target(named: attribute.name, in: to.attributes.map { ($0.name, $0.originalName) }) else {
                    problems.append("\(entity.name).\(attribute.name) is not a property of the app's \(entity.name)")
                    continue
                }
                let wanted = to.attributes[position]
                guard Self.accepts(wanted, from: attribute) else {
                    problems.append("\(entity.name).\(attribute.name) holds \(StoredSchema.Entity.baseType(of: attribute)) values; the app's is \(StoredSchema.Entity.baseType(of: wanted))")
                    continue
                }
                attributes[position] = index
            }
            for (position, attribute) in to.attributes.enumerated() where attributes[position] == nil && !attribute.isOptional {
                problems.append("the app's \(entity.name).\(attribute.name) is required and the store has no value for it")
            }
            var foreignKeys = [Int?](repeating: nil, count: to.foreignKeys.count)
            var links: [(Int, Int)] = []
            var inverseKeys: [(Int, String, StoredSchema.Relationship)] = []
            let targetRelationships = home.recordedRelationships
            for (index, relationship) in from.foreignKeys.enumerated() where !ignoring.contains("\(entity.name).\(relationship.name)") {
                guard let position = to.foreignKeys.firstIndex(where: { $0.name == relationship.name || $0.originalName == relationship.name }) else {
                    // A to-one the target keeps on the other side (its inverse's foreign key) is filled from there.
                    if targetRelationships.contains(where: { $0.name == relationship.name && !$0.isToMany }) { continue }
                    problems.append("\(entity.name).\(relationship.name) is not a to-one relationship of the app's \(entity.name)")
                    continue
                }
                foreignKeys[position] = index
            }
            for (index, relationship) in from.links.enumerated() where !ignoring.contains("\(entity.name).\(relationship.name)") {
                guard let wanted = targetRelationships.first(where: { $0.name == relationship.name || $0.originalName == relationship.name }), wanted.isToMany else {
                    problems.append("\(entity.name).\(relationship.name) is not a to-many relationship of the app's \(entity.name)")
                    continue
                }
                switch wanted.storage {
                case "link":
                    if let position = to.links.firstIndex(where: { $0.name == wanted.name }) { links.append((index, position)) }
                    // Otherwise the other side owns the pairs and copies them.
                case "inverse":
                    guard let inverse = wanted.inverse, let destination = targets[wanted.destination],
                          let foreignKey = destination.foreignKeys.first(where: { $0.name == inverse }) else {
                        problems.append("\(entity.name).\(relationship.name): the app's inverse \(wanted.inverse ?? "?") keeps no key")
                        continue
                    }
                    // Filled from the destination's own to-one when the source has it; else from here.
                    let sourceDestination = source.entities.first { $0.name == wanted.destination }
                    if sourceDestination?.foreignKeys.contains(where: { $0.name == inverse }) != true {
                        inverseKeys.append((index, wanted.destination, foreignKey))
                    }
                default:
                    continue
                }
            }
            plans.append(ModelPlan(source: from, target: to, attributes: attributes, foreignKeys: foreignKeys, links: links, inverseKeys: inverseKeys))
        }
        guard problems.isEmpty else { throw Mismatch(problems: problems) }
        self.plans = plans
        self.targetSchema = target
    }

    /// Whether values of the source attribute can be stored as the target attribute.
    private static func accepts(_ target: StoredSchema.Attribute, from source: StoredSchema.Attribute) -> Bool {
        let (wanted, given) = (StoredSchema.Entity.baseType(of: target), StoredSchema.Entity.baseType(of: source))
        if wanted == given { return true }
        switch (given, target.storage) {
        case ("Int", .integer), ("Int", .real), ("Double", .real), ("Float", .real), ("String", .text), ("URL", .text),
             ("Date", .date), ("Decimal", .decimal), ("UUID", .uuid), ("Data", .blob), ("Bool", .integer), ("JSON", .json):
            return wanted != "Bool" || given == "Bool"
        default:
            return false
        }
    }

    /// What a transfer copied: the rows per model, and each row's key in the target by model and
    /// key in the source.
    package struct Outcome {
        package var rows: [(model: String, rows: Int)]
        package var keys: [String: [Int64: Int64]]
    }

    /// Copies every row of `source` into `target` in one transaction of the target, recording an
    /// insertion in its history by `author`; `finish` runs last in that transaction, with each
    /// row's key in the target by model and key in the source.
    package func run(
        from source: any StoreTooling, into target: any StoreTooling, author: String,
        finish: ([String: [Int64: Int64]]) throws -> Void = { _ in }
    ) throws -> Outcome {
        var read: [[ModelRow]] = []
        for plan in plans {
            var rows: [ModelRow] = []
            try source.forEachRow(of: plan.source) { rows.append($0) }
            read.append(rows)
        }
        return try target.transaction {
            var preserve = try plans.allSatisfy { try target.rowCount(of: $0.target) == 0 }
            if preserve {
                var keysByRoot: [String: [Int64]] = [:]
                for (plan, rows) in zip(plans, read) { keysByRoot[targetSchema.root(of: plan.target.entity.name), default: []] += rows.map(\.id) }
                preserve = try target.canKeep(keysByRoot)
            }
            var keys: [String: [Int64: Int64]] = [:]
            for (plan, rows) in zip(plans, read) {
                let values = rows.map { row in
                    (key: preserve ? Optional(row.id) : nil,
                     values: plan.target.attributes.enumerated().map { position, attribute in
                         plan.attributes[position].map { attribute.encode(Self.converted(row.attributes[$0], to: attribute)) } ?? .null
                     })
                }
                let inserted: [Int64]
                do {
                    inserted = try target.insert(values, into: plan.target, root: targetSchema.hierarchyRoot(of: plan.target.entity.name))
                } catch let conflict as RowConflict {
                    let constraints = plan.target.entity.uniquenessConstraints.map { $0.joined(separator: "+") }.joined(separator: " or ")
                    let row = conflict.index.map { " (row \(rows[$0].id))" } ?? ""
                    throw SwiftDataError(.uniquenessConflict, reason: "\(plan.target.entity.name)\(row): another row has the same \(constraints); nothing was imported.")
                }
                for (row, key) in zip(rows, inserted) { keys[plan.target.entity.name, default: [:]][row.id] = key }
            }
            func resolve(_ key: Int64, in destination: String) throws -> Int64 {
                for name in [destination] + targetSchema.descendants(of: destination).map(\.name) {
                    if let resolved = keys[name]?[key] { return resolved }
                }
                throw SwiftDataError(.storeIsCorrupt, reason: "a relationship refers to \(destination) \(key), which the store does not hold; nothing was imported.")
            }
            var inverse: [String: [String: [(row: Int64, target: Int64)]]] = [:]
            for (plan, rows) in zip(plans, read) {
                let name = plan.target.entity.name
                var foreignKeys = Array(repeating: [(row: Int64, target: Int64)](), count: plan.target.foreignKeys.count)
                var links = Array(repeating: [(owner: Int64, target: Int64)](), count: plan.target.links.count)
                for row in rows {
                    guard let key = keys[name]?[row.id] else { continue }
                    for (position, relationship) in plan.target.foreignKeys.enumerated() {
                        guard let source = plan.foreignKeys[position], let related = row.foreignKeys[source] else { continue }
                        foreignKeys[position].append((key, try resolve(related, in: relationship.destination)))
                    }
                    for (source, position) in plan.links {
                        let relationship = plan.target.links[position]
                        for related in row.links[source] { links[position].append((key, try resolve(related, in: relationship.destination))) }
                    }
                    for (source, destination, foreignKey) in plan.inverseKeys {
                        for related in row.links[source] {
                            inverse[destination, default: [:]][foreignKey.name, default: []].append((try resolve(related, in: destination), key))
                        }
                    }
                }
                for (relationship, pairs) in zip(plan.target.foreignKeys, foreignKeys) where !pairs.isEmpty {
                    try target.setForeignKeys(pairs, of: relationship, in: plan.target)
                }
                for (relationship, pairs) in zip(plan.target.links, links) where !pairs.isEmpty {
                    guard let link = relationship.linkName else { continue }
                    try target.addLinks(pairs, to: link)
                }
            }
            for (destination, byKey) in inverse {
                guard let entity = targetSchema.entities.first(where: { $0.name == destination }) else { continue }
                let table = ModelTable(entity)
                for (name, pairs) in byKey {
                    guard let relationship = table.foreignKeys.first(where: { $0.name == name }) else { continue }
                    try target.setForeignKeys(pairs, of: relationship, in: table)
                }
            }
            try target.recordInsertions(plans.map { plan in (plan.target.entity.name, keys[plan.target.entity.name].map { Array($0.values).sorted() } ?? []) }, author: author)
            try finish(keys)
            return Outcome(rows: zip(plans, read).map { ($0.target.entity.name, $1.count) }, keys: keys)
        }
    }

    /// A source value as the target attribute's type reads it (an integer for a `Double`, say).
    private static func converted(_ value: TypedValue, to attribute: StoredSchema.Attribute) -> TypedValue {
        switch (value, attribute.storage) {
        case (.int(let number), .real): .double(Double(number))
        default: value
        }
    }
}
