import Foundation
import Testing

/// What `@Model` generates for a class, and what it refuses.
@Suite struct ModelMacroTests {
    let trip = """
        @Model
        final class Trip {
            #Unique<Trip>([\\.name, \\.startDate])
            @Attribute(.unique) var name: String
            var startDate: Date
            var rating: Int = 3
            var notes: String?
            @Attribute(.externalStorage) var photo: Data?
            @Transient var isSelected = false
            var nights: Int { 0 }
            static var defaultName = "Trip"

            init(name: String, startDate: Date) {
                self.name = name
                self.startDate = startDate
            }
        }
        """

    @Test func conformsToPersistentModelAndObservable() {
        let expansion = Expansion(trip)
        #expect(expansion.diagnostics.isEmpty)
        #expect(expansion.contains("extension Trip: OpenSwiftData.PersistentModel"))
        #expect(expansion.contains("extension Trip: Observation.Observable"))
    }

    /// A class declared `nonisolated` (as models are in a module whose default isolation is the
    /// main actor) gets nonisolated conformances; others get plain extensions.
    @Test func aNonisolatedClassGetsNonisolatedConformances() {
        let expansion = Expansion(trip.replacingOccurrences(of: "final class Trip", with: "nonisolated final class Trip"))
        #expect(expansion.diagnostics.isEmpty)
        #expect(expansion.contains("nonisolated extension Trip: OpenSwiftData.PersistentModel"))
        #expect(expansion.contains("nonisolated extension Trip: Observation.Observable"))
        #expect(!Expansion(trip).contains("nonisolated extension"))
    }

    @Test func addsTheMembersSwiftDataAdds() {
        let expansion = Expansion(trip)
        #expect(expansion.contains("public var persistentBackingData: any OpenSwiftData.BackingData<Trip>"))
        #expect(expansion.contains("public required init(backingData: any OpenSwiftData.BackingData<Trip>)"))
        #expect(expansion.contains("static var schemaMetadata"))
        #expect(expansion.contains("private var _$observationRegistrar: OpenSwiftData._ModelObservation"))
    }

    /// The flags share the temporary key's word; a final class of at most 32 properties keeps its
    /// changed and unloaded masks in one word, any other root class a word each (its subclasses,
    /// or its own properties, need more bits).
    @Test func packsTheStateFieldsOnlyWhereTheBitsFit() {
        let finalClass = Expansion(trip)
        #expect(finalClass.contains("@exclusivity(unchecked) public var _osdKeyAndFlags: Swift.UInt64 = 0"))
        #expect(finalClass.contains("@exclusivity(unchecked) public var _osdMasks: Swift.UInt64 = 0"))
        #expect(!finalClass.contains("public var _osdChangedProperties: Swift.UInt64 = 0"))

        let openClass = Expansion(trip.replacingOccurrences(of: "final class Trip", with: "class Trip"))
        #expect(openClass.contains("@exclusivity(unchecked) public var _osdKeyAndFlags: Swift.UInt64 = 0"))
        #expect(openClass.contains("@exclusivity(unchecked) public var _osdChangedProperties: Swift.UInt64 = 0"))
        #expect(openClass.contains("@exclusivity(unchecked) public var _osdUnloadedProperties: Swift.UInt64 = 0"))
        #expect(!openClass.contains("_osdMasks"))

        let properties = (0..<33).map { "    var p\($0): Int = 0" }.joined(separator: "\n")
        let wide = Expansion("@Model\nfinal class Wide {\n\(properties)\n    init() {}\n}")
        #expect(wide.contains("@exclusivity(unchecked) public var _osdChangedProperties: Swift.UInt64 = 0"))
        #expect(!wide.contains("_osdMasks"))
    }

    @Test func persistsStoredPropertiesInDeclarationOrder() {
        let expansion = Expansion(trip)
        #expect(expansion.contains("@OpenSwiftData._PersistedProperty(0) var name: String"))
        #expect(expansion.contains("@OpenSwiftData._PersistedProperty(1) var startDate: Date"))
        #expect(expansion.contains("_rating = try row._read((Int).self, column + 2, context)"))
        #expect(expansion.contains("_notes = try row._read((String?).self, column + 3, context)"))
        #expect(expansion.contains("registrar.withMutation(of: self, keyPath: \\.photo) { _photo = nil }"))
        #expect(expansion.contains("@OpenSwiftData._PersistedProperty(4) var photo: Data?"))
        #expect(!expansion.contains("_PersistedProperty(5)"), "five persisted properties")
    }

    /// A save stores what an `.ephemeral` attribute starts with, never the model's value: the
    /// declared initial value, `nil`, or the type's placeholder. An `originalName` that spells
    /// the option's name is not the option.
    @Test func writesAnEphemeralAttributesStartingValue() {
        let expansion = Expansion("""
            @Model final class Sketch {
                var title: String
                @Attribute(.ephemeral) var isSelected: Bool = false
                @Attribute(.ephemeral) var cursor: String?
                @Attribute(.ephemeral) var zoom: Int
                @Attribute(originalName: "old.ephemeral") var caption: String
                init() { title = ""; zoom = 1; caption = "" }
            }
            """)
        #expect(expansion.diagnostics.isEmpty)
        #expect(expansion.contains("_ = try Self._osdWriteDefault(property: 1, to: writer, at: column + 1)"))
        #expect(expansion.contains("try writer._write(nil as String?, column + 2, links)"))
        #expect(expansion.contains("try writer._write(try OpenSwiftData._osdEphemeralStoredValue(self, property: 3) as Int, column + 3, links)"))
        #expect(expansion.contains("try writer._write(value4, column + 4, links)"), "caption is stored")
        #expect(!expansion.contains("try writer._write(value1,"), "isSelected's value is never written")
        #expect(expansion.contains("case 1: let value: Bool = false try writer._write(value, column, OpenSwiftData._DeferredLinks()) return true"),
                "the initial value is the initializer expression, evaluated alone")
    }

    @Test func readsAndWritesATransformableValueThroughItsTransformer() {
        let expansion = Expansion("""
            @Model final class Swatch {
                @Attribute(.transformable(by: ColourTransformer.self), .preserveValueOnDeletion) var colour: Colour
                @Attribute(.unique, .transformable(by: "AccentTransformer")) var accent: Colour?
                @Attribute(originalName: "transformable(by: X.self)") var name: String
                init() { colour = Colour(); name = "" }
            }
            """)
        #expect(expansion.diagnostics.isEmpty)
        let byClass = ", transformedBy: OpenSwiftData._ValueTransformation(ColourTransformer.self, make: { ColourTransformer() }))"
        let byName = ", transformedBy: OpenSwiftData._ValueTransformation(\"AccentTransformer\"))"
        #expect(expansion.contains("_colour = try row._read((Colour).self, column + 0, context" + byClass))
        #expect(expansion.contains("try writer._write(value0, column + 0, links" + byClass))
        #expect(expansion.contains("_accent = try row._read((Colour?).self, column + 1, context" + byName))
        #expect(expansion.contains("try writer._write(value, column, links" + byName))
        #expect(expansion.contains("_name = try row._read((String).self, column + 2, context)"), "a name that spells the option is no option")
    }

    @Test func leavesTransientComputedAndStaticPropertiesAlone() {
        let expansion = Expansion(trip)
        #expect(!expansion.contains("_isSelected"))
        #expect(!expansion.contains("_nights"))
        #expect(!expansion.contains("_defaultName"))
        #expect(expansion.contains("var isSelected = false"))
    }

    @Test func recordsUniquenessAndExternalStorageInTheSchemaMetadata() {
        let expansion = Expansion(trip)
        #expect(expansion.contains("_osdUniquenessConstraints"))
        #expect(expansion.contains("[\\Trip.name, \\Trip.startDate]") || expansion.contains("[\\.name, \\.startDate]"))
        #expect(expansion.contains(".externalStorage"))
    }

    @Test func infersTheTypeOfLiteralDefaults() {
        let expansion = Expansion("""
            @Model final class Counter {
                var count = 0
                var title = "Untitled"
                var ratio = 0.5
                var enabled = true
                var created = Date()
                init() {}
            }
            """)
        #expect(expansion.diagnostics.isEmpty)
        #expect(expansion.contains("_count = try row._read((Int).self, column + 0, context)"))
        #expect(expansion.contains("_title = try row._read((String).self, column + 1, context)"))
        #expect(expansion.contains("_ratio = try row._read((Double).self, column + 2, context)"))
        #expect(expansion.contains("_enabled = try row._read((Bool).self, column + 3, context)"))
        #expect(expansion.contains("_created = try row._read((Date).self, column + 4, context)"))
    }

    @Test func aSubclassOverridesAndDefersToItsSuperclass() {
        let expansion = Expansion("""
            @Model
            final class Photo: MediaItem {
                var resolution: Int
                init(resolution: Int) {
                    self.resolution = resolution
                    super.init(title: "")
                }
            }
            """, ofSubclass: true)
        #expect(expansion.diagnostics.isEmpty)
        #expect(!expansion.contains("extension Photo: OpenSwiftData.PersistentModel"), "the conformance is inherited")
        #expect(!expansion.contains("_osdPrimaryKey"), "the state fields are inherited")
        #expect(expansion.contains("public override class var schemaMetadata"))
        #expect(expansion.contains("super.schemaMetadata + ["))
        #expect(expansion.contains("public required init(backingData: any OpenSwiftData.BackingData<_OSDRoot>)"))
        #expect(expansion.contains("super.init(backingData: backingData)"))
        #expect(expansion.contains("@OpenSwiftData._PersistedProperty(Photo._osdPropertyCount - 1 + 0)"))
        #expect(expansion.contains("switch index - MediaItem._osdPropertyCount"))
        #expect(expansion.contains("try super._osdDecodeAll(from: row, startingAt: column, resolving: context)"))
        #expect(expansion.contains("public override class var _osdSuperentity: (any OpenSwiftData.PersistentModel.Type)? { MediaItem.self }"))
    }

    @Test func aNonFinalClassMakesItsMembersOverridable() {
        let expansion = Expansion("""
            @Model
            class MediaItem: Identifiable {
                var title: String
                init(title: String) { self.title = title }
            }
            """)
        #expect(expansion.contains("extension MediaItem: OpenSwiftData.PersistentModel"), "Identifiable is a protocol, not a superclass")
        #expect(expansion.contains("public class var schemaMetadata"))
        #expect(expansion.contains("public class var _osdPropertyCount: Swift.Int { 1 }"))
        #expect(expansion.contains("public class func _osdKeyPathsMediaItem<S: MediaItem>(rootedAt type: S.Type)"))
        #expect(expansion.contains("public var _osdPrimaryKey"), "subclasses inherit the state fields")
    }

    /// A property of a plain value type (or an optional or array of one) is never a relationship,
    /// so the relationship methods skip it; any other type may be a model, `@Relationship` or not.
    @Test func onlyPropertiesThatMayHoldModelsTakePartInRelationships() {
        let expansion = Expansion("""
            @Model
            final class Trip {
                var name: String
                var tags: [String]?
                var home: Port?
                var stops: [Stop] = []
                var budget: Money?
                init(name: String) { self.name = name }
            }
            """)
        #expect(expansion.diagnostics.isEmpty)
        for plain in 0...1 {
            #expect(expansion.contains("case \(plain): return nil"))
        }
        for other in ["home", "stops", "budget"] {
            #expect(expansion.contains("guard var value = _\(other) else { return nil }"))
            #expect(expansion.contains("if let value = _\(other) { try OpenSwiftData._osdVisit(value, body) }"))
        }
        #expect(!expansion.contains("guard var value = _name else"))
        #expect(!expansion.contains("guard var value = _tags else"))
    }

    @Test func persistedPropertyExpandsToTrackedAccessors() {
        assertExpansion(
            """
            final class Trip {
                @_PersistedProperty(2)
                var name: String
            }
            """,
            expandedSource: """
            final class Trip {
                var name: String {
                @storageRestrictions(initializes: _name)
                init(initialValue) {
                    _name = initialValue
                }
                get {
                    _$observationRegistrar.access(self, keyPath: \\.name)
                    if _name == nil { _osdFulfill(property: 2) }
                    return _name ?? OpenSwiftData._osdPlaceholder(self, property: 2)
                }
                set {
                    let value = OpenSwiftData._osdWillSet(self, 2, self._name, newValue)
                    if let registrar = _$observationRegistrarStorage {
                        registrar.withMutation(of: self, keyPath: \\.name) {
                            _name = value
                        }
                    } else {
                        _name = value
                    }
                    _osdDidChange(property: 2)
                }
                }

                @exclusivity(unchecked) private var _name: Swift.Optional<String>
            }
            """)
    }

    /// A property of a type the standard placeholders may not cover, declared with an initial
    /// value, reads that value when its stored one cannot be loaded; a standard type does not
    /// need it, and a property without an initial value has none to give.
    @Test func aDeclaredInitialValueIsThePlaceholderOfATypeWithoutOne() {
        let expansion = Expansion("""
            final class Sign {
                @_PersistedProperty(0)
                var shape: Shape = .circle(radius: 1)
                @_PersistedProperty(1)
                var label: String = "exit"
                @_PersistedProperty(2)
                var mark: Mark
                @_PersistedProperty(3)
                var notes: [Note] = []
            }
            """)
        #expect(expansion.diagnostics.isEmpty)
        #expect(expansion.contains("return _shape ?? OpenSwiftData._osdPlaceholder(self, property: 0, declared: .circle(radius: 1))"))
        #expect(expansion.contains("return _label ?? OpenSwiftData._osdPlaceholder(self, property: 1)"))
        #expect(expansion.contains("return _mark ?? OpenSwiftData._osdPlaceholder(self, property: 2)"))
        #expect(expansion.contains("return _notes ?? OpenSwiftData._osdPlaceholder(self, property: 3)"))
    }

    /// A fixed-size scalar keeps its value without an `Optional` (8 bytes, not 16); a bit of
    /// `_osdUnloadedProperties` says whether it is loaded.
    @Test func aScalarPropertyExpandsToUnwrappedStorage() {
        assertExpansion(
            """
            final class Trip {
                @_PersistedProperty(2)
                var rating: Int
            }
            """,
            expandedSource: """
            final class Trip {
                var rating: Int {
                @storageRestrictions(initializes: _rating)
                init(initialValue) {
                    _rating = initialValue
                }
                get {
                    _$observationRegistrar.access(self, keyPath: \\.rating)
                    if _osdUnloadedProperties & ((1 as Swift.UInt64) << (2)) != 0 { _osdFulfill(property: 2) }
                    return _rating
                }
                set {
                    let value = OpenSwiftData._osdWillSet(self, 2, self._rating, newValue)
                    if let registrar = _$observationRegistrarStorage {
                        registrar.withMutation(of: self, keyPath: \\.rating) {
                            _rating = value
                        }
                    } else {
                        _rating = value
                    }
                    _osdUnloadedProperties &= ~((1 as Swift.UInt64) << (2))
                    _osdDidChange(property: 2)
                }
                }

                @exclusivity(unchecked) private var _rating: Int
            }
            """)
    }
}

/// The compile-time errors of `@Model`.
@Suite struct ModelDiagnosticsTests {
    @Test func refusesAStruct() {
        let expansion = Expansion("@Model struct Trip { var name: String }")
        #expect(expansion.diagnostics.contains { $0.contains("@Model can only be applied to a class") })
    }

    @Test func refusesAnEnum() {
        let expansion = Expansion("@Model enum Kind { case a, b }")
        #expect(expansion.diagnostics.contains { $0.contains("@Model can only be applied to a class") })
    }

    @Test func refusesATransientPropertyWithoutADefault() {
        let expansion = Expansion("""
            @Model final class Trip {
                var name: String
                @Transient var cached: Int
                init(name: String) { self.name = name }
            }
            """)
        #expect(expansion.diagnostics == [
            "@Transient properties are not stored, so they need a default value (for example '= nil' or '= 0')",
        ])
    }

    @Test func refusesTypesThatCannotBeStored() {
        let expansion = Expansion("""
            @Model final class Trip {
                var name: String
                var callback: () -> Void
                var anything: Any
                init(name: String) { self.name = name }
            }
            """)
        #expect(expansion.diagnostics.filter { $0.contains("cannot be stored") }.count == 2)
    }

    @Test func refusesALetWithAnInitialValueOrARelationshipLet() {
        let expansion = Expansion("""
            @Model final class Trip {
                let created = Date()
                @Relationship let owner: Person?
                init() { owner = nil }
            }
            """)
        #expect(expansion.diagnostics == [
            "A 'let' with an initial value cannot take its stored value when a model is read back; drop the initial value or declare it 'var'",
            "A relationship changes as related models change; declare it 'var' (or 'private(set) var')",
        ])
    }

    @Test func asksForATypeItCannotInfer() {
        let expansion = Expansion("""
            @Model final class Trip {
                var start = makeStart()
                init() {}
            }
            """)
        #expect(expansion.diagnostics.contains { $0.contains("explicit type annotation") })
    }

    @Test func acceptsEveryStorableKind() {
        let expansion = Expansion("""
            @Model final class Everything {
                var a: Int
                var b: [String]
                var c: Set<UUID>
                var d: [String: Double]
                var e: Mood?
                var f: Address
                var g: Decimal
                var h: URL?
                init() {}
            }
            """)
        #expect(expansion.diagnostics.isEmpty)
    }
}
