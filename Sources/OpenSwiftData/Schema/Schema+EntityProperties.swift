extension Schema.Entity {
    /// The entity's properties: its attributes, then its relationships, those it inherits
    /// included.
    public var properties: [any SchemaProperty] { storedProperties }

    /// The entity's properties, keyed by name.
    public var propertiesByName: [String: any SchemaProperty] { Self.byName(properties) }

    /// The stored properties, keyed by name.
    public var storedPropertiesByName: [String: any SchemaProperty] { Self.byName(storedProperties) }

    /// The relationships, keyed by name.
    public var relationshipsByName: [String: Schema.Relationship] {
        Dictionary(relationships.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The name of the entity this one inherits from, if any.
    public var superentityName: String? { superentity?.name }

    /// The properties the entity inherits from its superentity (none without one).
    public var inheritedProperties: [any SchemaProperty] { superentity?.storedProperties ?? [] }

    /// The inherited properties, keyed by name.
    public var inheritedPropertiesByName: [String: any SchemaProperty] { Self.byName(inheritedProperties) }

    private static func byName(_ properties: [any SchemaProperty]) -> [String: any SchemaProperty] {
        Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
