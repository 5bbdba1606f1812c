extension Schema.Entity {
    /// The entity's properties: its attributes, then its relationships, those it inherits
    /// included.
    public var properties: [any SchemaProperty] { storedProperties }

    /// The entity's properties, keyed by name.
    public var propertiesByName: [String: any SchemaProperty] { Self.byName(properties, \.name) }

    /// The stored properties, keyed by name.
    public var storedPropertiesByName: [String: any SchemaProperty] { Self.byName(storedProperties, \.name) }

    /// The attributes, keyed by name.
    public var attributesByName: [String: Schema.Attribute] { Self.byName(attributes, \.name) }

    /// The relationships, keyed by name.
    public var relationshipsByName: [String: Schema.Relationship] { Self.byName(relationships, \.name) }

    /// The name of the entity this one inherits from, if any.
    public var superentityName: String? { superentity?.name }

    /// The properties the entity inherits from its superentity (none without one).
    public var inheritedProperties: [any SchemaProperty] { superentity?.storedProperties ?? [] }

    /// The inherited properties, keyed by name.
    public var inheritedPropertiesByName: [String: any SchemaProperty] { Self.byName(inheritedProperties, \.name) }

    /// `items` keyed by name; the first of two with one name wins.
    private static func byName<Item>(_ items: [Item], _ name: (Item) -> String) -> [String: Item] {
        Dictionary(items.map { (name($0), $0) }, uniquingKeysWith: { first, _ in first })
    }
}
