/// Converts a Swift class into a stored model that's managed by OpenSwiftData.
///
/// Apply the macro to a class and write its designated initializer as usual:
///
/// ```swift
/// @Model
/// final class Trip {
///     var name: String
///     var startDate: Date
///     var rating: Int = 0
///
///     init(name: String, startDate: Date) {
///         self.name = name
///         self.startDate = startDate
///     }
/// }
/// ```
///
/// Every stored `var` becomes a persisted attribute, except those marked ``Transient()``. The macro
/// conforms the class to ``PersistentModel`` and `Observable`.
@attached(
    member,
    conformances: PersistentModel, Observable, _PersistentModelRoot,
    names: named(persistentBackingData), named(schemaMetadata), named(_osdPrimaryKey), named(_osdTemporaryKey),
    named(_osdChangedProperties), named(_osdUnloadedProperties), named(_osdFlags), named(_osdKeyAndFlags), named(_osdMasks),
    named(_osdContextReference), named(_osdLocation),
    named(init), named(_$observationRegistrar), named(_$observationRegistrarStorage), named(_osdDecodeAll), named(_osdDecode), named(_osdEncode),
    named(_osdUnload), named(_osdRelease), named(_osdEntityName),
    named(_osdEncodeAll), named(_osdMake), named(_osdWriteDefault),
    named(_osdRelate), named(_osdSetRelated), named(_osdVisitRelated), named(_osdSuperentity), named(_osdPropertyCount), named(_osdHasConstants),
    named(_OSDRoot), named(_osdInheritedKeyPaths), prefixed(_osdKeyPaths)
)
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel, Observable, _PersistentModelRoot)
public macro Model() = #externalMacro(module: "OpenSwiftDataMacros", type: "ModelMacro")

/// Generates the accessors and storage of one persisted property. `@Model` attaches it; don't write it.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_))
public macro _PersistedProperty(_ index: Int) = #externalMacro(module: "OpenSwiftDataMacros", type: "PersistedPropertyMacro")

/// Specifies the custom behavior that OpenSwiftData applies to the annotated property when managing
/// the owning class.
///
/// - Parameters:
///   - options: Options that customize how the property is stored, such as ``Schema/Attribute/Option/unique``.
///   - originalName: The property's name in a previous version of the schema, for migration.
///   - hashModifier: A string that changes the schema's hash for this property.
@attached(peer)
public macro Attribute(
    _ options: Schema.Attribute.Option...,
    originalName: String? = nil,
    hashModifier: String? = nil
) = #externalMacro(module: "OpenSwiftDataMacros", type: "MarkerMacro")

/// Specifies the options that OpenSwiftData needs to manage the annotated property as a relationship
/// between two models.
@attached(peer)
public macro Relationship(
    _ options: Schema.Relationship.Option...,
    deleteRule: Schema.Relationship.DeleteRule = .nullify,
    minimumModelCount: Int? = 0,
    maximumModelCount: Int? = 0,
    originalName: String? = nil,
    inverse: AnyKeyPath? = nil,
    hashModifier: String? = nil
) = #externalMacro(module: "OpenSwiftDataMacros", type: "MarkerMacro")

/// Tells OpenSwiftData not to persist the annotated property. The property needs a default value,
/// which it has again whenever the model is fetched.
@attached(peer)
public macro Transient() = #externalMacro(module: "OpenSwiftDataMacros", type: "MarkerMacro")

/// Specifies the key paths that OpenSwiftData uses to enforce the uniqueness of model instances.
///
/// ```swift
/// #Unique<Person>([\.id], [\.givenName, \.familyName])
/// ```
@freestanding(declaration, names: named(_osdUniquenessConstraints))
public macro Unique<T>(_ constraints: [PartialKeyPath<T>]...) =
    #externalMacro(module: "OpenSwiftDataMacros", type: "UniqueMacro")

/// Specifies the key paths that OpenSwiftData uses to create indexes for the model's storage.
///
/// ```swift
/// #Index<Trip>([\.name], [\.startDate, \.endDate])
/// ```
@freestanding(declaration, names: named(_osdIndexes))
public macro Index<T>(_ indices: [PartialKeyPath<T>]...) =
    #externalMacro(module: "OpenSwiftDataMacros", type: "IndexMacro")

/// Specifies the key paths that OpenSwiftData uses to create indexes for the model's storage, with
/// the kind of each index.
///
/// ```swift
/// #Index<Trip>(.binary([\.name]), .binary([\.startDate, \.endDate]))
/// ```
///
/// Both kinds are stored as binary (B-tree) indexes; see ``Schema/Index``.
@freestanding(declaration, names: named(_osdIndexes))
public macro Index<T: PersistentModel>(_ indices: Schema.Index<T>.Types<T>...) =
    #externalMacro(module: "OpenSwiftDataMacros", type: "IndexMacro")

/// Converts a Swift actor into a model actor by generating boilerplate code that fulfills the
/// requirements of the associated protocol.
///
/// The macro adds `modelExecutor`, `modelContainer` and `init(modelContainer:)`, and conforms the
/// actor to ``ModelActor``. The actor's code then runs on a ``DefaultSerialModelExecutor`` that owns
/// a ``ModelContext`` of the container.
@attached(member, names: named(modelExecutor), named(modelContainer), named(init))
@attached(extension, conformances: ModelActor)
public macro ModelActor() = #externalMacro(module: "OpenSwiftDataMacros", type: "ModelActorMacro")
