/// What a row read from a store holds for one entity: its key first, then the values of the
/// entity's selected properties in order. Every store reads rows in this shape, so the context
/// decodes them the same way whatever the store.
///
/// A property has a value in the row when it is an attribute or the key-holding side of a to-one
/// relationship; to-many relationships, and the keyless side of a one-to-one, are loaded apart.
/// External-storage attributes are left out of full fetches and loaded on first access.
package final class RowShape: Sendable {
    package let entity: Schema.Entity
    /// The relationships, by property index.
    package let links: [Int: RelationshipLink]
    /// The properties with a value of their own in the row, in order.
    package let storedProperties: [Int]
    /// The properties a full fetch loads: every stored property but external-storage ones.
    package let eagerAttributes: [Int]
    /// Whether a full fetch selects every property in order (so `_osdDecodeAll` applies): the
    /// entity has no external storage. Properties without a stored value read as NULL and decode
    /// as unloaded.
    package let loadsAllAttributes: Bool
    /// The properties a full fetch selects after the key, in order: every property or, when some
    /// are loaded on first access, the eager ones.
    package let selectedProperties: [Int]
    /// Whether the entity owns the pairs of a many-to-many or one-way to-many relationship, which
    /// a save writes apart from its rows.
    package let ownsLinks: Bool
    /// The to-one relationships without a stored value (the keyless side of a one-to-one): a row
    /// decodes them as `nil`, so they are marked unloaded after decoding.
    package let keylessToOne: [Int]
    /// Whether the model class has `let` properties, which are read as a model is made.
    package let hasConstants: Bool
    /// Whether decoding a row may look up or make a model of the entity's own identity map: the
    /// row holds the key of a to-one relationship to the entity itself, or to any entity when the
    /// entity is in a class hierarchy (whose classes share one key space), or the model class has
    /// `let` properties.
    package let decodesOwnModels: Bool
    /// The `.ephemeral` attributes, one bit each (property `i` is bit `i`): a save writes no
    /// change to them.
    package let ephemeralProperties: UInt64

    package init(entity: Schema.Entity) {
        self.entity = entity
        self.links = entity.links
        let fields = entity.fields
        let stored = fields.indices.filter { fields[$0].hasColumn }
        self.storedProperties = stored
        let eager = stored.filter { !fields[$0].isExternal }
        self.eagerAttributes = eager
        let loadsAll = !fields.contains { $0.isExternal }
        self.loadsAllAttributes = loadsAll
        self.selectedProperties = loadsAll ? Array(fields.indices) : eager
        self.ownsLinks = entity.links.values.contains { if case .link(_, true) = $0.storage { true } else { false } }
        self.hasConstants = entity.modelType._osdHasConstants
        self.decodesOwnModels = hasConstants || entity.links.values.contains {
            $0.storage == .foreignKey && ($0.destinationName == entity.name || entity.isInHierarchy)
        }
        self.keylessToOne = entity.links.values.filter { !$0.isToMany && $0.storage == .inverseForeignKey }.map(\.property).sorted()
        self.ephemeralProperties = fields.indices.filter { fields[$0].isEphemeral && $0 < 64 }.reduce(0) { $0 | 1 << UInt64($1) }
    }
}
