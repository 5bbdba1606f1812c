#if compiler(>=6.2)
/// The metatype requirement of ``PersistentModel``: `SendableMetatype`, as Apple declares it, so
/// that generic code can send a model's type (`T.Type`) to another task or actor.
public typealias _PersistentModelMetatype = SendableMetatype
#else
/// Stands in for `SendableMetatype`, which compilers before Swift 6.2 do not have.
public protocol _PersistentModelMetatype {}
#endif

/// An interface that enables OpenSwiftData to manage a Swift class as a stored model.
///
/// You don't conform to this protocol yourself: apply the ``Model()`` macro to a class instead.
/// A model's metatype is `Sendable` (the protocol refines `SendableMetatype`, as SwiftData's
/// does): generic code may send `T.Type` across tasks, to make a `FetchDescriptor<T>` there.
public protocol PersistentModel: AnyObject, Observable, Hashable, Identifiable, _PersistentModelMetatype {
    /// Creates a model instance from its backing data, without running your initializer.
    init(backingData: any BackingData<Self>)

    /// The underlying data that the model reads and writes.
    var persistentBackingData: any BackingData<Self> { get set }

    /// The persisted properties of the model, in declaration order.
    static var schemaMetadata: [Schema.PropertyMetadata] { get }

    /// The model's uniqueness constraints, from `#Unique`. Generated; not API.
    static var _osdUniquenessConstraints: [[AnyKeyPath]] { get }
    /// The model's indexes, from `#Index`. Generated; not API.
    static var _osdIndexes: [[AnyKeyPath]] { get }
    /// The row of the instance in its store, or 0 before its first save. Generated storage; not API.
    var _osdPrimaryKey: Int64 { get set }
    /// A process-unique number that identifies the instance before its first save, or 0. Generated
    /// storage; not API.
    var _osdTemporaryKey: UInt64 { get set }
    /// One bit per persisted property changed since the last save. Generated storage; not API.
    var _osdChangedProperties: UInt64 { get set }
    /// Whether the instance is inserted, deleted, a fault, listed as changed. Generated storage; not API.
    var _osdFlags: _ModelFlags { get set }
    /// The context that manages the instance, through the reference the context shares with all
    /// its models. Generated storage; not API.
    var _osdContextReference: _ContextReference? { get set }
    /// The entity and store of the instance, once a context manages it. Generated storage; not API.
    var _osdLocation: _ModelLocation? { get set }
    /// Reads every persisted property from consecutive columns of a row; `context` resolves the
    /// keys of to-one relationships into models. Generated; not API.
    func _osdDecodeAll(from row: some _RowReader, startingAt column: Int32, resolving context: ModelContext) throws
    /// Reads one persisted property from a column of a row. Generated; not API.
    func _osdDecode(property index: Int, from row: some _RowReader, at column: Int32, resolving context: ModelContext) throws
    /// Writes one persisted property to a parameter; `links` collects to-one relationships to
    /// models that get their keys later in the same save. Generated; not API.
    func _osdEncode(property index: Int, to writer: some _RowWriter, at column: Int32, deferring links: _DeferredLinks) throws
    /// Forgets the loaded value of one property so that the next read loads it again. Generated; not API.
    func _osdUnload(property index: Int)
    /// Forgets the loaded value of one property without telling Observation (the next read loads
    /// the same value again): for models whose context is going away. Generated; not API.
    func _osdRelease(property index: Int)
    /// Adds a model to, or removes it from, one relationship without touching its inverse; returns
    /// the model a to-one relationship held before `other` replaced it. Generated; not API.
    func _osdRelate(property index: Int, to other: any PersistentModel, adding: Bool) -> (any PersistentModel)?
    /// Sets a relationship to models loaded from the store. Generated; not API.
    func _osdSetRelated(property index: Int, to models: [AnyObject])
    /// Calls `body` with each model one relationship holds, loading the relationship first when
    /// `loading` is true. Generated; not API.
    func _osdVisitRelated(property index: Int, loading: Bool, _ body: (any PersistentModel) throws -> Void) rethrows
    /// The entity name of the model class, without a run-time type lookup. Generated; not API.
    static var _osdEntityName: String { get }
    /// Writes every stored property, in declaration order, from `column` on. Generated; not API.
    func _osdEncodeAll(to writer: some _RowWriter, startingAt column: Int32, deferring links: _DeferredLinks) throws
    /// Creates an empty instance for a row to fill. Generated for final classes; not API.
    static func _osdMake() -> Self
    /// Creates an empty instance for a row to fill, already managed by the context `context`
    /// refers to: its key and location set as it is made. Generated for final classes; not API.
    static func _osdMake(primaryKey: Int64, context: _ContextReference, location: _ModelLocation) -> Self
    /// Writes the declared initial value of a property, for a migration that adds it; returns
    /// `false` when the property has none. Generated; not API.
    static func _osdWriteDefault(property index: Int, to writer: some _RowWriter, at column: Int32) throws -> Bool
    /// Whether the class (or a superclass) has `let` properties, which its `init(backingData:)`
    /// reads from the row or store the model is made from. Generated; not API.
    static var _osdHasConstants: Bool { get }
    /// The model class this one inherits from, when it is a subclass of another model. Generated; not API.
    static var _osdSuperentity: (any PersistentModel.Type)? { get }
    /// For a subclass, the key paths of its inherited properties rooted at it, in property order.
    /// Generated; not API.
    static var _osdInheritedKeyPaths: [AnyKeyPath] { get }
}

/// Marks the root class of a hierarchy of model classes, so that `@Model` can tell a model
/// superclass from a protocol listed first. `@Model` adds the conformance; not API.
public protocol _PersistentModelRoot: AnyObject {}

extension PersistentModel {
    public static var _osdUniquenessConstraints: [[AnyKeyPath]] { [] }
    public static var _osdIndexes: [[AnyKeyPath]] { [] }
    public static var _osdEntityName: String { String(describing: self) }
    public static func _osdMake() -> Self { Self(backingData: _ModelBacking<Self>()) }
    public static func _osdMake(primaryKey: Int64, context: _ContextReference, location: _ModelLocation) -> Self {
        let model = _osdMake()
        model._osdPrimaryKey = primaryKey
        model._osdContextReference = context
        model._osdLocation = location
        return model
    }
    public static func _osdWriteDefault(property index: Int, to writer: some _RowWriter, at column: Int32) throws -> Bool { false }
    public static var _osdSuperentity: (any PersistentModel.Type)? { nil }
    public static var _osdHasConstants: Bool { false }
    public static var _osdInheritedKeyPaths: [AnyKeyPath] { [] }

    /// The identifier of the model: stable once the model has been saved.
    ///
    /// A model that was inserted but not saved yet has a temporary identifier; saving replaces it
    /// with a permanent one.
    public var persistentModelID: PersistentIdentifier { _osdState.persistentModelID(for: type(of: self)) }

    /// The stable identity of the model, its ``persistentModelID``.
    public var id: PersistentIdentifier { persistentModelID }

    /// The context that manages the model, or `nil` if it was never inserted or has been deleted and saved.
    public var modelContext: ModelContext? { _osdState.context }

    /// A Boolean value that indicates whether the model has unsaved changes.
    public var hasChanges: Bool { _osdState.hasChanges }

    /// A Boolean value that indicates whether the model is marked for deletion.
    public var isDeleted: Bool { _osdState.isDeleted }

    /// Two models are equal when they are the same instance: a context holds one instance per row.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs === rhs }

    /// Hashes the instance's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// Returns the value of the persisted property at the key path.
    public func getValue<Value>(forKey key: KeyPath<Self, Value>) -> Value { self[keyPath: key] }

    /// Sets the value of the persisted property at the key path.
    public func setValue<Value>(forKey key: ReferenceWritableKeyPath<Self, Value>, to newValue: Value) {
        self[keyPath: key] = newValue
    }
}
