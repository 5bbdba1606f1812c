import OpenSwiftDataSync

/// Which models a share of a model carries, read from the schema once: what hangs off a model
/// through its to-many relationships whose delete rule is `cascade`, to any depth, as a deletion of
/// the model would delete it.
///
/// A store keeps one side of a relationship, so a model names what hangs off it either in its own
/// values (a list of identifiers under the to-many relationship) or in each child's (the inverse
/// to-one relationship names the parent).
struct ShareTreeShape: Sendable {
    /// A cascading to-many relationship whose children name their parent.
    struct InverseLink: Sendable, Hashable {
        /// The models a child may be: the relationship's destination and its subclasses.
        let children: [String]
        /// The child's to-one relationship that names the parent.
        let inverse: String
    }

    /// By model: its cascading to-many relationships, which hold their children's identifiers
    /// when the model's side is the one kept.
    private(set) var childLists: [String: [String]] = [:]
    /// By model: its to-one relationships that name a parent whose delete rule cascades to it.
    private(set) var parentReferences: [String: [String]] = [:]
    /// By model: its cascading to-many relationships that children name through their inverse.
    private(set) var inverseLinks: [String: [InverseLink]] = [:]

    init(_ schema: SyncSchema) {
        var subclasses: [String: [String]] = [:]
        for entity in schema.entities {
            var ancestor = entity.superentity
            var seen: Set<String> = [entity.name]
            while let name = ancestor, seen.insert(name).inserted {
                subclasses[name, default: []].append(entity.name)
                ancestor = schema.entity(named: name)?.superentity
            }
        }
        for entity in schema.entities {
            for property in entity.properties where property.kind == "toMany" && property.deleteRule == "cascade" {
                guard let destination = property.destination else { continue }
                childLists[entity.name, default: []].append(property.name)
                guard let inverse = property.inverse else { continue }
                let children = [destination] + (subclasses[destination] ?? [])
                inverseLinks[entity.name, default: []].append(InverseLink(children: children, inverse: inverse))
                for child in children where schema.entity(named: child)?.properties.contains(where: { $0.name == inverse && $0.kind == "toOne" }) == true {
                    if parentReferences[child]?.contains(inverse) != true { parentReferences[child, default: []].append(inverse) }
                }
            }
        }
    }

    /// Whether any model carries others into its shares.
    var isEmpty: Bool { childLists.isEmpty }

    /// The parents a row names through the inverses of cascading relationships.
    func parents(of row: SyncRow) -> [String] {
        guard !row.deleted else { return [] }
        return (parentReferences[row.entity] ?? []).compactMap { name in
            if case .reference(let id) = row.values[name] { id } else { nil }
        }
    }

    /// The children a row lists under its cascading to-many relationships.
    func listedChildren(of row: SyncRow) -> [String] {
        guard !row.deleted else { return [] }
        return (childLists[row.entity] ?? []).flatMap { name -> [String] in
            if case .references(let ids) = row.values[name] { return ids }
            return []
        }
    }
}
