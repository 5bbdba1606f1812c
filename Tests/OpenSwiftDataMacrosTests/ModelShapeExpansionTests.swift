import Testing

/// Model shapes from real apps that `@Model` must accept, expanded exactly.
@Suite struct ModelShapeExpansionTests {
    /// A protocol first in the inheritance clause: the class is a root model (the compiler lists
    /// `_PersistentModelRoot` among the conformances it lacks), and its property indices are
    /// expressions that hold whichever the first type turns out to be.
    @Test func aProtocolListedFirstExpandsAsARootModel() {
        assertExpansion(
            """
            @Model
            final class Note: TastingNote {
                var rating: Int
                init(rating: Int) { self.rating = rating }
            }
            """,
            expandedSource: """
            final class Note: TastingNote {
                @OpenSwiftData._PersistedProperty(Note._osdPropertyCount - 1 + 0)
                var rating: Int
                init(rating: Int) { self.rating = rating }

                @exclusivity(unchecked) public var _osdPrimaryKey: Swift.Int64 = 0

                @exclusivity(unchecked) public var _osdKeyAndFlags: Swift.UInt64 = 0

                public var _osdTemporaryKey: Swift.UInt64 {
                    get { _osdKeyAndFlags >> 8 }
                    set { _osdKeyAndFlags = newValue << 8 | _osdKeyAndFlags & 0xFF }
                }

                public var _osdFlags: OpenSwiftData._ModelFlags {
                    get { OpenSwiftData._ModelFlags(rawValue: Swift.UInt8(truncatingIfNeeded: _osdKeyAndFlags)) }
                    set { _osdKeyAndFlags = _osdKeyAndFlags & ~0xFF | Swift.UInt64(newValue.rawValue) }
                }

                @exclusivity(unchecked) public var _osdMasks: Swift.UInt64 = 0

                public var _osdChangedProperties: Swift.UInt64 {
                    get { _osdMasks & 0xFFFF_FFFF }
                    set { _osdMasks = _osdMasks & 0xFFFF_FFFF_0000_0000 | newValue & 0xFFFF_FFFF }
                }

                public var _osdUnloadedProperties: Swift.UInt64 {
                    get { _osdMasks >> 32 }
                    set { _osdMasks = newValue << 32 | _osdMasks & 0xFFFF_FFFF }
                }

                @exclusivity(unchecked) public var _osdContextReference: OpenSwiftData._ContextReference? = nil

                @exclusivity(unchecked) public var _osdLocation: OpenSwiftData._ModelLocation? = nil

                public var persistentBackingData: any OpenSwiftData.BackingData<Note> {
                    get { OpenSwiftData._ModelBacking<Note>(of: self) }
                    set { _osdAdopt(newValue) }
                }

                public required init(backingData: any OpenSwiftData.BackingData<Note>) {
                    _rating = (Int)._osdPlaceholder
                    _osdUnloadedProperties |= 1
                    _osdAdopt(backingData)
                }

                @exclusivity(unchecked) private var _$observationRegistrarStorage: OpenSwiftData._ModelObservation? = nil

                private var _$observationRegistrar: OpenSwiftData._ModelObservation {
                    if let registrar = _$observationRegistrarStorage { return registrar }
                    let registrar = OpenSwiftData._ModelObservation()
                    _$observationRegistrarStorage = registrar
                    return registrar
                }

                public static var _osdPropertyCount: Swift.Int { 1 }

                public static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                    [
                        OpenSwiftData.Schema.PropertyMetadata._persisted(name: "rating", keypath: \\Note.rating, metadata: nil)
                    ]
                }

                public static var _osdEntityName: Swift.String { "Note" }

                public static func _osdWriteDefault(property index: Swift.Int, to writer: some OpenSwiftData._RowWriter, at column: Swift.Int32) throws -> Swift.Bool {
                        return false
                }

                @_specialize(exported: false, where Writer == OpenSwiftData._SQLiteStatement)
                public func _osdEncodeAll<Writer: OpenSwiftData._RowWriter>(to writer: Writer, startingAt column: Swift.Int32, deferring links: OpenSwiftData._DeferredLinks) throws {
                    guard _osdUnloadedProperties & ((1 as Swift.UInt64) << (0)) == 0 else { throw Self._osdUnloaded("rating") }
                    let value0 = _rating
                    try writer._write(value0, column + 0, links)
                }

                @_specialize(exported: false, where Row == OpenSwiftData._SQLiteStatement)
                public func _osdDecodeAll<Row: OpenSwiftData._RowReader>(from row: Row, startingAt column: Swift.Int32, resolving context: OpenSwiftData.ModelContext) throws {
                    _rating = try row._read((Int).self, column + 0, context)
                    _osdUnloadedProperties &= ~1
                }

                public func _osdRelate(property index: Swift.Int, to other: any OpenSwiftData.PersistentModel, adding: Swift.Bool) -> (any OpenSwiftData.PersistentModel)? {
                    switch index {
                    case 0: return nil
                    default: return nil
                    }
                }

                public func _osdSetRelated(property index: Swift.Int, to models: [Swift.AnyObject]) {
                    switch index {
                    case 0: break
                    default: break
                    }
                }

                public func _osdVisitRelated(property index: Swift.Int, loading: Swift.Bool, _ body: (any OpenSwiftData.PersistentModel) throws -> Swift.Void) rethrows {
                    switch index {
                    case 0: break
                    default: break
                    }
                }

                @_specialize(exported: false, where Row == OpenSwiftData._SQLiteStatement)
                public func _osdDecode<Row: OpenSwiftData._RowReader>(property index: Swift.Int, from row: Row, at column: Swift.Int32, resolving context: OpenSwiftData.ModelContext) throws {
                    switch index {
                    case 0:
                        _rating = try row._read((Int).self, column, context)
                        _osdUnloadedProperties &= ~((1 as Swift.UInt64) << (0))
                    default: break
                    }
                }

                @_specialize(exported: false, where Writer == OpenSwiftData._SQLiteStatement)
                public func _osdEncode<Writer: OpenSwiftData._RowWriter>(property index: Swift.Int, to writer: Writer, at column: Swift.Int32, deferring links: OpenSwiftData._DeferredLinks) throws {
                    switch index {
                    case 0:
                        guard _osdUnloadedProperties & ((1 as Swift.UInt64) << (0)) == 0 else { throw Self._osdUnloaded("rating") }
                        let value = _rating
                        try writer._write(value, column, links)
                    default: break
                    }
                }

                public func _osdUnload(property index: Swift.Int) {
                    switch index {
                    case 0:
                        if let registrar = _$observationRegistrarStorage {
                            registrar.withMutation(of: self, keyPath: \\.rating) { _osdUnloadedProperties |= ((1 as Swift.UInt64) << (0)) }
                        } else {
                            _osdUnloadedProperties |= ((1 as Swift.UInt64) << (0))
                        }
                    default: break
                    }
                }

                public func _osdRelease(property index: Swift.Int) {
                    switch index {
                    case 0: _osdUnloadedProperties |= ((1 as Swift.UInt64) << (0))
                    default: break
                    }
                }

                public static func _osdMake() -> Note {
                    Note(_osdUnloaded: ())
                }

                public static func _osdMake(primaryKey: Swift.Int64, context: OpenSwiftData._ContextReference, location: OpenSwiftData._ModelLocation) -> Note {
                    let model = Note(_osdUnloaded: ())
                    model._osdPrimaryKey = primaryKey
                    model._osdContextReference = context
                    model._osdLocation = location
                    return model
                }

                private init(_osdUnloaded: Swift.Void) {
                    _rating = (Int)._osdPlaceholder
                    _osdUnloadedProperties |= 1
                }
            }

            extension Note: OpenSwiftData.PersistentModel {}

            extension Note: Observation.Observable {}

            extension Note: OpenSwiftData._PersistentModelRoot {}
            """)
    }

    /// The same declaration, when the first type is a model superclass: overrides, no conformances.
    @Test func theSameShapeExpandsAsASubclassWhenTheTypeCheckerSaysSo() {
        let expansion = Expansion("""
            @Model
            final class Note: TastingNote {
                var rating: Int
                init(rating: Int) { self.rating = rating }
            }
            """, ofSubclass: true)
        #expect(expansion.diagnostics.isEmpty)
        #expect(expansion.contains("@OpenSwiftData._PersistedProperty(Note._osdPropertyCount - 1 + 0)"))
        #expect(expansion.contains("public override class var _osdPropertyCount: Swift.Int { TastingNote._osdPropertyCount + 1 }"))
        #expect(expansion.contains("super.init(backingData: backingData)"))
        #expect(!expansion.contains("extension Note:"))
    }

    /// `@Transient` on a computed property is accepted and left as written.
    @Test func aTransientComputedPropertyIsLeftAlone() {
        let expansion = Expansion("""
            @Model final class Stock {
                var isAvailable: Bool = true
                @Transient var isNotAvailable: Bool { isAvailable == false }
                @Transient var label: String {
                    get { isAvailable ? "in stock" : "sold out" }
                }
                init() {}
            }
            """)
        #expect(expansion.diagnostics.isEmpty)
        #expect(expansion.contains("var isNotAvailable: Bool { isAvailable == false }"))
        #expect(!expansion.contains("_isNotAvailable"))
        #expect(!expansion.contains("_label"))
        #expect(expansion.contains("_persisted(name: \"isAvailable\", keypath: \\Stock.isAvailable, metadata: nil) ]"))
    }

    /// An implicitly unwrapped optional is stored as the optional it stands for.
    @Test func anImplicitlyUnwrappedOptionalIsStoredAsAnOptional() {
        assertExpansion(
            """
            final class Setting {
                @_PersistedProperty(0)
                var key: String!
            }
            """,
            expandedSource: """
            final class Setting {
                var key: String! {
                @storageRestrictions(initializes: _key)
                init(initialValue) {
                    _key = initialValue
                }
                get {
                    _$observationRegistrar.access(self, keyPath: \\.key)
                    if _key == nil { _osdFulfill(property: 0) }
                    return _key ?? OpenSwiftData._osdPlaceholder(self, property: 0)
                }
                set {
                    let value = OpenSwiftData._osdWillSet(self, 0, self._key, newValue)
                    if let registrar = _$observationRegistrarStorage {
                        registrar.withMutation(of: self, keyPath: \\.key) {
                            _key = value
                        }
                    } else {
                        _key = value
                    }
                    _osdDidChange(property: 0)
                }
                }

                @exclusivity(unchecked) private var _key: Swift.Optional<String?>
            }
            """)
        let expansion = Expansion("""
            @Model final class Setting {
                var key: String!
                init() {}
            }
            """)
        #expect(expansion.diagnostics.isEmpty)
        #expect(expansion.contains("_key = try row._read((String?).self, column + 0, context)"))
    }

    /// A `let` is stored as any property is, but has no accessors: `init(backingData:)` sets it from
    /// the row or store the model is made from, the coders write it and never read it back.
    @Test func aLetIsSetByTheBackingDataInitializerAndWrittenLikeAnyProperty() {
        let expansion = Expansion("""
            @Model final class Device {
                @Attribute(.unique) let id: String
                var name: String
                init(id: String, name: String) { self.id = id; self.name = name }
            }
            """)
        #expect(expansion.diagnostics.isEmpty)
        #expect(!expansion.contains("@OpenSwiftData._PersistedProperty(0)"), "a let has no accessors")
        #expect(expansion.contains("@OpenSwiftData._PersistedProperty(1)"))
        #expect(expansion.contains("""
            public required init(backingData: any OpenSwiftData.BackingData<Device>) {
                self.id = OpenSwiftData._osdConstant((String).self, property: 0)
                _name = nil
                _osdAdopt(backingData)
            }
            """))
        #expect(expansion.contains("public static var _osdHasConstants: Swift.Bool { true }"))
        #expect(expansion.contains("""
            OpenSwiftData.Schema.PropertyMetadata._persisted(name: "id", keypath: \\Device.id, metadata: OpenSwiftData.Schema.Attribute(.unique))
            """))
        #expect(expansion.contains("""
            try writer._write(self.id, column + 0, links)
                guard let value1 = _name else { throw Self._osdUnloaded("name") }
                try writer._write(value1, column + 1, links)
            """))
        #expect(expansion.contains("""
            public func _osdDecodeAll<Row: OpenSwiftData._RowReader>(from row: Row, startingAt column: Swift.Int32, resolving context: OpenSwiftData.ModelContext) throws {
                _name = try row._read((String).self, column + 1, context)
            }
            """))
        #expect(expansion.contains("case 0: break case 1: _name = try row._read((String).self, column, context)"))
        #expect(expansion.contains("case 0: try writer._write(self.id, column, links)"))
        #expect(!expansion.contains("_osdDefaults"), "writing a declared initial value makes no model, so no let needs a value")
    }

    /// A subclass's `let` is read by its own `init(backingData:)`, at its index after the superclass's.
    @Test func aSubclassLetTakesItsIndexAfterTheSuperclass() {
        let expansion = Expansion("""
            @Model final class Violin: Instrument {
                let maker: String
                init(maker: String) { self.maker = maker; super.init() }
            }
            """, ofSubclass: true)
        #expect(expansion.diagnostics.isEmpty)
        #expect(expansion.contains("public override class var _osdHasConstants: Swift.Bool { true }"))
        #expect(expansion.contains("self.maker = OpenSwiftData._osdConstant((String).self, property: Instrument._osdPropertyCount + 0)"))
        #expect(expansion.contains("try super._osdDecodeAll(from: row, startingAt: column, resolving: context) }"), "nothing else to read")
    }
}
