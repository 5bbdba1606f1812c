import SwiftSyntax
import SwiftSyntaxBuilder

/// The members `@Model` generates per class, in the form its `ClassShape` needs.
extension ModelMacro {
    /// Code that stores `value` in a property's storage, telling Observation if anyone observes
    /// the object (its registrar exists only once something read a property).
    static func observedAssignment(_ property: PersistedProperty, _ value: String, indent: String) -> String {
        observedChange(property, "_\(property.name) = \(value)", indent: indent)
    }

    /// Code that runs `statement`, a change of a property's storage, telling Observation if anyone
    /// observes the object.
    static func observedChange(_ property: PersistedProperty, _ statement: String, indent: String) -> String {
        """
        \(indent)if let registrar = _$observationRegistrarStorage {
        \(indent)    registrar.withMutation(of: self, keyPath: \\.\(property.reference)) { \(statement) }
        \(indent)} else {
        \(indent)    \(statement)
        \(indent)}
        """
    }

    /// The state fields that share words, so that no one-byte field is followed by padding (Swift
    /// keeps a class's stored properties in declaration order): the flags in the low byte of the
    /// temporary key's word (56 bits of key), and in a final class of at most 32 properties, the
    /// changed and unloaded masks in the two halves of one word. Any other class keeps a word per
    /// mask: it has more bits, or may have subclasses that add theirs.
    static func packedStateFields(packsMasks: Bool) -> [GeneratedCode] {
        var fields: [GeneratedCode] = [
            "@exclusivity(unchecked) public var _osdKeyAndFlags: Swift.UInt64 = 0",
            """
            public var _osdTemporaryKey: Swift.UInt64 {
                get { _osdKeyAndFlags >> 8 }
                set { _osdKeyAndFlags = newValue << 8 | _osdKeyAndFlags & 0xFF }
            }
            """,
            """
            public var _osdFlags: OpenSwiftData._ModelFlags {
                get { OpenSwiftData._ModelFlags(rawValue: Swift.UInt8(truncatingIfNeeded: _osdKeyAndFlags)) }
                set { _osdKeyAndFlags = _osdKeyAndFlags & ~0xFF | Swift.UInt64(newValue.rawValue) }
            }
            """,
        ]
        guard packsMasks else {
            return fields + [
                "@exclusivity(unchecked) public var _osdChangedProperties: Swift.UInt64 = 0",
                // The properties with unwrapped storage that are not loaded, one bit each.
                "@exclusivity(unchecked) public var _osdUnloadedProperties: Swift.UInt64 = 0",
            ]
        }
        fields += [
            // The changed properties in the low half, the unloaded ones in the high half.
            "@exclusivity(unchecked) public var _osdMasks: Swift.UInt64 = 0",
            """
            public var _osdChangedProperties: Swift.UInt64 {
                get { _osdMasks & 0xFFFF_FFFF }
                set { _osdMasks = _osdMasks & 0xFFFF_FFFF_0000_0000 | newValue & 0xFFFF_FFFF }
            }
            """,
            """
            public var _osdUnloadedProperties: Swift.UInt64 {
                get { _osdMasks >> 32 }
                set { _osdMasks = newValue << 32 | _osdMasks & 0xFFFF_FFFF }
            }
            """,
        ]
        return fields
    }

    /// What `init(backingData:)` assigns: "not loaded" to each property's storage (`nil`, or the
    /// type's placeholder for unwrapped storage, whose bit ``unloadedBits(_:_:)`` sets), and to
    /// each `let` its stored value, read from the row or store the model is made from.
    static func initialAssignments(_ shape: ClassShape, _ properties: [PersistedProperty]) -> String {
        properties.enumerated().map { index, property in
            property.isConstant
                ? "    self.\(property.reference) = OpenSwiftData._osdConstant((\(property.type)).self, property: \(shape.index(index))\(property.codingArguments))"
                : "    _\(property.name) = \(unloadedValue(property))"
        }.joined(separator: "\n")
    }

    /// The storage of a property that is not loaded: `nil`, or the placeholder of unwrapped storage.
    static func unloadedValue(_ property: PersistedProperty) -> String {
        property.hasUnwrappedStorage ? "(\(property.type))._osdPlaceholder" : "nil"
    }

    /// The bits of `_osdUnloadedProperties` of the class's own properties with unwrapped storage,
    /// as an expression, or `nil` when it has none.
    static func unloadedBits(_ shape: ClassShape, _ properties: [PersistedProperty]) -> String? {
        var mask: UInt64 = 0
        for (index, property) in properties.enumerated() where property.hasUnwrappedStorage { mask |= 1 << UInt64(index) }
        guard mask != 0 else { return nil }
        return shape.isSubclass ? "((\(mask) as Swift.UInt64) << \(shape.propertyOffset))" : "\(mask)"
    }

    /// The line an initializer that leaves every property unloaded ends with: it sets the bits of
    /// the class's own unwrapped-storage properties (empty when it has none).
    static func markAllUnloaded(_ shape: ClassShape, _ properties: [PersistedProperty]) -> String {
        unloadedBits(shape, properties).map { "\n    _osdUnloadedProperties |= \($0)" } ?? ""
    }

    static func schemaMetadata(_ shape: ClassShape, properties: [PersistedProperty]) -> GeneratedCode {
        let entries = properties.map { property in
            let metadata: String
            if property.isRelationship {
                metadata = "OpenSwiftData.Schema.Relationship(\(property.relationshipArguments ?? ""))"
            } else if let arguments = property.attributeArguments {
                metadata = "OpenSwiftData.Schema.Attribute(\(arguments))"
            } else {
                metadata = "nil"
            }
            return "OpenSwiftData.Schema.PropertyMetadata._persisted(name: \"\(property.name)\", "
                + "keypath: \\\(shape.typeName).\(property.reference), metadata: \(metadata))"
        }
        let own = "[\(entries.map { "\n        " + $0 }.joined(separator: ","))\n    ]"
        return """
            public \(raw: shape.typeMemberKeyword) var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                \(raw: shape.isSubclass ? "super.schemaMetadata + " : "")\(raw: own)
            }
            """
    }

    /// A method that switches over the class's own properties (by their index within the class)
    /// and hands any other index to its superclass, or to `otherwise` in a root class.
    private static func dispatch(_ shape: ClassShape, attributes: String = "", signature: String, cases: [String], superCall: String, otherwise: String) -> GeneratedCode {
        let subject = shape.isSubclass ? "index - \(shape.propertyOffset)" : "index"
        return """
            \(raw: attributes.isEmpty ? "" : attributes + "\n")public \(raw: shape.isSubclass ? "override " : "")func \(raw: signature) {
                switch \(raw: subject) {
            \(raw: cases.joined(separator: "\n"))
                default: \(raw: shape.isSubclass ? superCall : otherwise)
                }
            }
            """
    }

    /// The switch cases of a method over the class's properties: `body` for each property
    /// `handles` accepts, and for any other one a case that does `otherwise`.
    private static func switchCases(
        _ properties: [PersistedProperty], handling handles: (PersistedProperty) -> Bool, otherwise: String,
        _ body: (_ index: Int, _ property: PersistedProperty) -> String
    ) -> [String] {
        properties.enumerated().map { index, property in
            handles(property) ? body(index, property) : "    case \(index): \(otherwise)"
        }
    }

    /// The SQLite store's fast path: the generic row coders also compiled for its statement type,
    /// which the generic entry point dispatches to when given one. Other stores use the generic code.
    static func fastPath(_ parameter: String) -> String {
        "@_specialize(exported: false, where \(parameter) == OpenSwiftData._SQLiteStatement)"
    }

    static func decodeAll(_ shape: ClassShape, _ properties: [PersistedProperty]) -> GeneratedCode {
        let offset = shape.isSubclass ? " + offset" : ""
        // A `let` was read as the model was made.
        var lines = properties.enumerated().filter { !$0.element.isConstant }.map { index, property in
            "    _\(property.name) = try row._read((\(property.type)).self, column\(offset) + \(index), context\(property.codingArguments))"
        }
        if let bits = unloadedBits(shape, properties) { lines.append("    _osdUnloadedProperties &= ~\(bits)") }
        let prologue = shape.isSubclass
            ? "    try super._osdDecodeAll(from: row, startingAt: column, resolving: context)\n" + (lines.isEmpty ? "" : "    let offset = Swift.Int32(\(shape.propertyOffset))\n") : ""
        return """
            \(raw: fastPath("Row"))
            public \(raw: shape.isSubclass ? "override " : "")func _osdDecodeAll<Row: OpenSwiftData._RowReader>(from row: Row, startingAt column: Swift.Int32, resolving context: OpenSwiftData.ModelContext) throws {
            \(raw: prologue)\(raw: lines.joined(separator: "\n"))
            }
            """
    }

    static func encodeAll(_ shape: ClassShape, _ properties: [PersistedProperty]) -> GeneratedCode {
        let offset = shape.isSubclass ? " + offset" : ""
        let lines = properties.enumerated().map { index, property in
            if property.isConstant { return "    try writer._write(self.\(property.reference), column\(offset) + \(index), links\(property.codingArguments))" }
            if property.isEphemeral { return "    " + ephemeralWrite(shape, property, index: index, column: "column\(offset) + \(index)") }
            return """
            \(loadedValue(shape, property, index: index, as: "value\(index)"))
                try writer._write(value\(index), column\(offset) + \(index), links\(property.codingArguments))
            """
        }
        let prologue = shape.isSubclass
            ? "    try super._osdEncodeAll(to: writer, startingAt: column, deferring: links)\n    let offset = Swift.Int32(\(shape.propertyOffset))\n" : ""
        return """
            \(raw: fastPath("Writer"))
            public \(raw: shape.isSubclass ? "override " : "")func _osdEncodeAll<Writer: OpenSwiftData._RowWriter>(to writer: Writer, startingAt column: Swift.Int32, deferring links: OpenSwiftData._DeferredLinks) throws {
            \(raw: prologue)\(raw: lines.joined(separator: "\n"))
            }
            """
    }

    static func decodeOne(_ shape: ClassShape, _ properties: [PersistedProperty]) -> GeneratedCode {
        let cases = switchCases(properties, handling: { !$0.isConstant }, otherwise: "break") { index, property in
            """
                case \(index):
                    _\(property.name) = try row._read((\(property.type)).self, column, context\(property.codingArguments))\(property.hasUnwrappedStorage ? "\n        " + markLoadedStatement(shape.index(index)) : "")
            """
        }
        return dispatch(
            shape, attributes: fastPath("Row"),
            signature: "_osdDecode<Row: OpenSwiftData._RowReader>(property index: Swift.Int, from row: Row, at column: Swift.Int32, resolving context: OpenSwiftData.ModelContext) throws",
            cases: cases, superCall: "try super._osdDecode(property: index, from: row, at: column, resolving: context)", otherwise: "break")
    }

    static func encodeOne(_ shape: ClassShape, _ properties: [PersistedProperty]) -> GeneratedCode {
        let cases = properties.enumerated().map { index, property in
            if property.isConstant { return "    case \(index): try writer._write(self.\(property.reference), column, links\(property.codingArguments))" }
            if property.isEphemeral { return "    case \(index): " + ephemeralWrite(shape, property, index: index, column: "column") }
            return """
                case \(index):
            \(loadedValue(shape, property, index: index, as: "value", indent: "        "))
                    try writer._write(value, column, links\(property.codingArguments))
            """
        }
        return dispatch(
            shape, attributes: fastPath("Writer"),
            signature: "_osdEncode<Writer: OpenSwiftData._RowWriter>(property index: Swift.Int, to writer: Writer, at column: Swift.Int32, deferring links: OpenSwiftData._DeferredLinks) throws",
            cases: cases, superCall: "try super._osdEncode(property: index, to: writer, at: column, deferring: links)", otherwise: "break")
    }

    static func resetOne(_ shape: ClassShape, _ properties: [PersistedProperty]) -> GeneratedCode {
        // Observers learn that the value changed (a rollback, or a save in another context).
        let cases = switchCases(properties, handling: { !$0.isConstant }, otherwise: "break") { index, property in
            "    case \(index):\n" + observedChange(property, markUnloaded(shape, property, index: index), indent: "        ")
        }
        return dispatch(
            shape, signature: "_osdUnload(property index: Swift.Int)",
            cases: cases, superCall: "super._osdUnload(property: index)", otherwise: "break")
    }

    /// Forgets one property's loaded value without telling Observation: for a context that is
    /// going away, whose models read the same value again from the store.
    static func releaseOne(_ shape: ClassShape, _ properties: [PersistedProperty]) -> GeneratedCode {
        let cases = switchCases(properties, handling: { !$0.isConstant }, otherwise: "break") { index, property in
            "    case \(index): \(markUnloaded(shape, property, index: index))"
        }
        return dispatch(
            shape, signature: "_osdRelease(property index: Swift.Int)",
            cases: cases, superCall: "super._osdRelease(property: index)", otherwise: "break")
    }

    /// Adds `other` to, or removes it from, one relationship's storage without inverse
    /// maintenance: the other half of keeping an inverse consistent. Returns the model a to-one
    /// relationship pointed at before, when `other` replaced it.
    static func relate(_ shape: ClassShape, _ properties: [PersistedProperty]) -> GeneratedCode {
        let cases = switchCases(properties, handling: \.mayHoldModels, otherwise: "return nil") { index, property in
            """
                case \(index):
                    if _\(property.name) == nil { _osdFulfill(property: \(shape.index(index))) }
                    guard var value = _\(property.name) else { return nil }
                    let (changed, displaced) = OpenSwiftData._osdRelate(&value, other, adding: adding)
                    if changed {
            \(observedAssignment(property, "value", indent: "            "))
                        _osdDidChange(property: \(shape.index(index)))
                    }
                    return displaced
            """
        }
        return dispatch(
            shape, signature: "_osdRelate(property index: Swift.Int, to other: any OpenSwiftData.PersistentModel, adding: Swift.Bool) -> (any OpenSwiftData.PersistentModel)?",
            cases: cases, superCall: "return super._osdRelate(property: index, to: other, adding: adding)", otherwise: "return nil")
    }

    /// Sets a relationship loaded from the store (the models are all of the destination class).
    static func setRelated(_ shape: ClassShape, _ properties: [PersistedProperty]) -> GeneratedCode {
        let cases = switchCases(properties, handling: \.mayHoldModels, otherwise: "break") { index, property in
            """
                case \(index):
                    if let value = OpenSwiftData._osdRelatedValue(models, as: (\(property.type)).self) {
            \(observedAssignment(property, "value", indent: "            "))
                    }
            """
        }
        return dispatch(
            shape, signature: "_osdSetRelated(property index: Swift.Int, to models: [Swift.AnyObject])",
            cases: cases, superCall: "super._osdSetRelated(property: index, to: models)", otherwise: "break")
    }

    /// Calls `body` with each model a relationship holds, loading it first if `loading`.
    static func visitRelated(_ shape: ClassShape, _ properties: [PersistedProperty]) -> GeneratedCode {
        let cases = switchCases(properties, handling: \.mayHoldModels, otherwise: "break") { index, property in
            """
                case \(index):
                    if loading, _\(property.name) == nil { _osdFulfill(property: \(shape.index(index))) }
                    if let value = _\(property.name) { try OpenSwiftData._osdVisit(value, body) }
            """
        }
        return dispatch(
            shape, signature: "_osdVisitRelated(property index: Swift.Int, loading: Swift.Bool, _ body: (any OpenSwiftData.PersistentModel) throws -> Swift.Void) rethrows",
            cases: cases, superCall: "try super._osdVisitRelated(property: index, loading: loading, body)", otherwise: "break")
    }

    /// The declared initial values, for a migration that adds a property and for what an
    /// `.ephemeral` attribute stores: a writer of one property's initial value, which evaluates
    /// the property's initializer expression alone (no model is made, so no `let` needs a value).
    static func defaults(_ shape: ClassShape, properties: [PersistedProperty]) -> GeneratedCode {
        let cases = properties.enumerated().compactMap { index, property -> String? in
            guard let initialValue = property.initialValue else { return nil }
            return """
                case \(index):
                    let value: \(property.type) = \(initialValue)
                    try writer._write(value, column, OpenSwiftData._DeferredLinks()\(property.codingArguments))
                    return true
            """
        }
        let lookup = shape.isSubclass
            ? """
                    let local = index - \(shape.propertyOffset)
                    guard local >= 0 else { return try super._osdWriteDefault(property: index, to: writer, at: column) }
                """
            : "        let local = index"
        let body = cases.isEmpty
            ? (shape.isSubclass ? lookup + "\n        _ = local\n        return false" : "        return false")
            : """
            \(lookup)
                    switch local {
                \(cases.joined(separator: "\n"))
                    default: return false
                    }
            """
        return """
            public \(raw: shape.typeMemberKeyword) func _osdWriteDefault(property index: Swift.Int, to writer: some OpenSwiftData._RowWriter, at column: Swift.Int32) throws -> Swift.Bool {
            \(raw: body)
            }
            """
    }

    /// Writes what an `.ephemeral` attribute stores in place of its value: the value a new model
    /// starts with (the declared initial value, `nil`, or the type's placeholder), which a model
    /// fetched from the store then reads.
    static func ephemeralWrite(_ shape: ClassShape, _ property: PersistedProperty, index: Int, column: String) -> String {
        if property.hasInitialValue {
            return "_ = try Self._osdWriteDefault(property: \(shape.index(index)), to: writer, at: \(column))"
        }
        if property.isOptional {
            return "try writer._write(nil as \(property.type), \(column), links\(property.codingArguments))"
        }
        return "try writer._write(try OpenSwiftData._osdEphemeralStoredValue(self, property: \(shape.index(index))) as \(property.type), \(column), links\(property.codingArguments))"
    }

    /// Binds `name` to a property's loaded value, or throws when it is not loaded.
    static func loadedValue(_ shape: ClassShape, _ property: PersistedProperty, index: Int, as name: String, indent: String = "    ") -> String {
        let unloaded = "throw Self._osdUnloaded(\"\(property.name)\")"
        guard property.hasUnwrappedStorage else {
            return "\(indent)guard let \(name) = _\(property.name) else { \(unloaded) }"
        }
        return """
            \(indent)guard \(isLoadedCondition(shape.index(index))) else { \(unloaded) }
            \(indent)let \(name) = _\(property.name)
            """
    }

    /// Marks a property not loaded: `nil` storage, or its bit for unwrapped storage (the value
    /// stays until the next load replaces it).
    static func markUnloaded(_ shape: ClassShape, _ property: PersistedProperty, index: Int) -> String {
        property.hasUnwrappedStorage ? markUnloadedStatement(shape.index(index)) : "_\(property.name) = nil"
    }

    /// For a final class: creates an empty instance without a run-time generic type lookup, and
    /// through an initializer of its own, so that each fetched row does not make and take apart
    /// the backing-data existential `init(backingData:)` receives (about 150 instructions a row).
    /// A fetched row's instance gets its key, context and location as it is made, in the class's
    /// own fields rather than through the protocol's setters.
    static func factory(typeName: String, assignments: String) -> [GeneratedCode] {
        [
            """
            public static func _osdMake() -> \(raw: typeName) {
                \(raw: typeName)(_osdUnloaded: ())
            }
            """,
            """
            public static func _osdMake(primaryKey: Swift.Int64, context: OpenSwiftData._ContextReference, location: OpenSwiftData._ModelLocation) -> \(raw: typeName) {
                let model = \(raw: typeName)(_osdUnloaded: ())
                model._osdPrimaryKey = primaryKey
                model._osdContextReference = context
                model._osdLocation = location
                return model
            }
            """,
            """
            private init(_osdUnloaded: Swift.Void) {
            \(raw: assignments)
            }
            """,
        ]
    }
}
