/// An object that maps model classes to data in the model store, and helps with the migration of
/// that data between releases.
///
/// A schema is immutable once a ``ModelContainer`` uses it.
public final class Schema: Hashable, @unchecked Sendable {
    // @unchecked Sendable: a schema and its entities are built once, before any container shares
    // them, and never mutated afterwards.

    /// The entities of the schema, one per model class.
    public private(set) var entities: [Entity]
    /// The schema's version.
    public let version: Version
    /// The entities keyed by name.
    public private(set) var entitiesByName: [String: Entity]
    /// The version of the format that describes schemas, ``schemaEncodingVersion``.
    public let encodingVersion = Schema.schemaEncodingVersion
    /// The version of the format that describes schemas: how OpenSwiftData records a schema in a
    /// store, to compare it with the models of a later launch.
    public static let schemaEncodingVersion = Version(1, 0, 0)
    /// The entities keyed by model class, for look-ups without hashing a name.
    private(set) var entitiesByType: [ObjectIdentifier: Entity]
    /// Whether any relationship limits the number of its models, so that saves check them.
    let hasRelationshipCountLimits: Bool

    /// Creates a schema that maps the given model classes.
    ///
    /// As in SwiftData, the models the given ones relate to are included even when not listed, and
    /// so are the superclasses of subclassed models.
    public init(_ types: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) {
        var seen = Set<ObjectIdentifier>()
        var ordered: [any PersistentModel.Type] = []
        var pending = types
        var next = 0
        while next < pending.count {
            let type = pending[next]
            next += 1
            // Superclasses first, so that every entity's superentity exists before it.
            var chain: [any PersistentModel.Type] = [type]
            while let parent = chain.last?._osdSuperentity { chain.append(parent) }
            for member in chain.reversed() where seen.insert(ObjectIdentifier(member)).inserted {
                ordered.append(member)
                for link in ModelGraph.description(of: member).links.values where !seen.contains(ObjectIdentifier(link.destination)) {
                    pending.append(link.destination)
                }
            }
        }
        self.entities = ordered.map { Entity(modelType: $0) }
        self.hasRelationshipCountLimits = entities.contains { !$0.relationshipCountLimits.isEmpty }
        self.version = version
        self.entitiesByName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.entitiesByType = Dictionary(entities.map { (ObjectIdentifier($0.modelType), $0) }, uniquingKeysWith: { first, _ in first })
        for entity in entities {
            guard let parent = entity.modelType._osdSuperentity, let superentity = entitiesByType[ObjectIdentifier(parent)] else { continue }
            entity.superentity = superentity
            superentity.subentities.insert(entity)
            var ancestor: Entity? = superentity
            while let current = ancestor {
                current.descendants.append(entity)
                ancestor = current.superentity
            }
        }
    }

    /// Creates a schema that maps the given model classes.
    public convenience init(_ types: any PersistentModel.Type..., version: Version = Version(1, 0, 0)) {
        self.init(types, version: version)
    }

    /// Creates a schema from the models of a versioned schema.
    public convenience init(versionedSchema: any VersionedSchema.Type) {
        self.init(versionedSchema.models, version: versionedSchema.versionIdentifier)
    }

    /// The name OpenSwiftData gives the entity of a model class: the class's name.
    public static func entityName<T: PersistentModel>(for type: T.Type) -> String {
        type._osdEntityName
    }

    /// Returns the entity that describes the given model class.
    public func entity<T: PersistentModel>(for type: T.Type) -> Entity? {
        entitiesByName[Schema.entityName(for: type)]
    }

    /// Two schemas are equal when they describe the same entities at the same version.
    public static func == (lhs: Schema, rhs: Schema) -> Bool {
        lhs.version == rhs.version && lhs.entities == rhs.entities
    }

    /// Hashes the schema's version and entity names.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(version)
        hasher.combine(entities.map(\.name))
    }
}

extension Schema {
    /// A semantic version of a schema.
    public struct Version: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
        /// The major version.
        public var major: Int
        /// The minor version.
        public var minor: Int
        /// The patch version.
        public var patch: Int

        /// Creates a version from its three components.
        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }

        /// The version as `major.minor.patch`.
        public var description: String { "\(major).\(minor).\(patch)" }

        /// Orders versions by major, then minor, then patch.
        public static func < (lhs: Version, rhs: Version) -> Bool {
            (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }
    }
}

/// An interface for describing a specific version of a schema, including the models it contains.
public protocol VersionedSchema {
    /// The version of the schema.
    static var versionIdentifier: Schema.Version { get }
    /// The models the schema version contains.
    static var models: [any PersistentModel.Type] { get }
}
