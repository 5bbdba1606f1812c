/// Which of a model's unsaved-change and loading states hold. Generated storage; not API.
public struct _ModelFlags: OptionSet, Sendable {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The model is inserted in its context and not saved yet.
    @inlinable public static var inserted: _ModelFlags { _ModelFlags(rawValue: 1 << 0) }
    /// The model is marked for deletion (or its row was deleted).
    @inlinable public static var deleted: _ModelFlags { _ModelFlags(rawValue: 1 << 1) }
    /// The model was created from an identifier and none of its row is loaded yet.
    @inlinable public static var fault: _ModelFlags { _ModelFlags(rawValue: 1 << 2) }
    /// The context already lists the model among its changed models.
    @inlinable public static var listedAsChanged: _ModelFlags { _ModelFlags(rawValue: 1 << 3) }
}

/// Where a model lives: its entity's name and its store's identifier, shared by every model of
/// the entity that a context manages. Generated storage holds it; not API.
public final class _ModelLocation: Sendable {
    /// The name of the model's entity.
    let entityName: String
    /// The identifier of the store that holds the model.
    let storeIdentifier: String?

    init(entityName: String, storeIdentifier: String?) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
    }
}

/// What OpenSwiftData knows about one model instance: its row, its context and its unsaved
/// changes, read and written in the fields that `@Model` generates into the model class itself
/// (one object per model, no side allocation).
///
/// Not API. A view of one model, made for a moment (`model._osdState.primaryKey`), never stored:
/// it does not keep the model alive. A model and its state belong to one context and are used
/// only in that context's isolation domain.
package struct _ModelState {
    /// The model whose fields this view reads and writes.
    unowned(unsafe) let model: any PersistentModel

    /// The context that manages the model, or `nil` (none yet, or it was deallocated).
    var context: ModelContext? {
        get { model._osdContextReference?.current }
        nonmutating set { model._osdContextReference = newValue?.reference }
    }
    /// The row of the model in its store, or 0 before the first save.
    package var primaryKey: Int64 {
        get { model._osdPrimaryKey }
        nonmutating set { model._osdPrimaryKey = newValue }
    }
    /// A process-unique number that identifies the model before its first save.
    var temporaryKey: UInt64 {
        get { model._osdTemporaryKey }
        nonmutating set { model._osdTemporaryKey = newValue }
    }
    /// Where the model lives, once a context has managed it.
    var location: _ModelLocation? {
        get { model._osdLocation }
        nonmutating set { model._osdLocation = newValue }
    }
    /// The name of the model's entity, once a context has managed the model.
    var entityName: String? { model._osdLocation?.entityName }
    /// The identifier of the store that holds the model.
    var storeIdentifier: String? { model._osdLocation?.storeIdentifier }
    /// One bit per persisted property changed since the last save.
    var changedProperties: UInt64 {
        get { model._osdChangedProperties }
        nonmutating set { model._osdChangedProperties = newValue }
    }
    /// Whether the model is inserted in its context and not saved yet.
    var isInserted: Bool {
        get { model._osdFlags.contains(.inserted) }
        nonmutating set { set(.inserted, newValue) }
    }
    /// Whether the model is marked for deletion.
    package var isDeleted: Bool {
        get { model._osdFlags.contains(.deleted) }
        nonmutating set { set(.deleted, newValue) }
    }
    /// Whether the model was created from an identifier and none of its row is loaded yet.
    var isFault: Bool {
        get { model._osdFlags.contains(.fault) }
        nonmutating set { set(.fault, newValue) }
    }
    /// Whether the context already lists the model among its changed models.
    var isListedAsChanged: Bool {
        get { model._osdFlags.contains(.listedAsChanged) }
        nonmutating set { set(.listedAsChanged, newValue) }
    }

    private func set(_ flag: _ModelFlags, _ value: Bool) {
        if value { model._osdFlags.insert(flag) } else { model._osdFlags.remove(flag) }
    }

    /// Whether the model has unsaved changes.
    var hasChanges: Bool {
        !model._osdFlags.isDisjoint(with: [.inserted, .deleted]) || model._osdChangedProperties != 0
    }

    /// The model's identifier: permanent after its first save, temporary before.
    func persistentModelID<M: PersistentModel>(for type: M.Type) -> PersistentIdentifier {
        let location = model._osdLocation
        let primaryKey = model._osdPrimaryKey
        let key: PersistentIdentifier.ID.Key
        if primaryKey != 0 {
            key = .permanent(primaryKey)
        } else {
            var temporaryKey = model._osdTemporaryKey
            if temporaryKey == 0 {
                temporaryKey = PersistentIdentifier.nextTemporaryKey()
                model._osdTemporaryKey = temporaryKey
            }
            key = .temporary(temporaryKey)
        }
        return PersistentIdentifier(
            storeIdentifier: location?.storeIdentifier,
            entityName: location?.entityName ?? Schema.entityName(for: type),
            key: key
        )
    }
}

extension PersistentModel {
    /// A view of the state OpenSwiftData keeps in the model's generated fields.
    package var _osdState: _ModelState { _ModelState(model: self) }

    /// Records a change of the property at `index`. Called by generated setters.
    @inlinable
    public func _osdDidChange(property index: Int) {
        _osdChangedProperties |= 1 << UInt64(index)
        if _osdFlags.isDisjoint(with: [.listedAsChanged, .inserted]), _osdPrimaryKey != 0 {
            _osdListAsChanged()
        }
    }

    /// Adds the model to its context's changed models, the first time one of its properties
    /// changes after a fetch or a save.
    @usableFromInline
    func _osdListAsChanged() {
        guard let context = _osdContextReference?.current else { return }
        _osdFlags.insert(.listedAsChanged)
        context.modelDidChange(self)
    }

    /// Loads the value of the property at `index` from the store. Called by generated getters when
    /// the row was fetched without that property.
    public func _osdFulfill(property index: Int) {
        let state = _osdState
        // A model that outlived its context still loads what it has not loaded yet, through a
        // context of the same container that stands in for the deallocated one.
        if let reference = _osdContextReference, reference.context == nil, state.primaryKey != 0, !state.isDeleted,
           let standIn = reference.standIn() {
            standIn.adoptOrphan(self)
        }
        let name = "\(Self.self).\(Self.schemaMetadata[index].name)"
        guard let context = state.context, state.primaryKey != 0 else {
            Diagnostics.report("\(name) was read after the model's ModelContext and ModelContainer were deallocated (or the model was never saved): it reads as a placeholder; keep the container alive while you use the models it fetched")
            return
        }
        do {
            try context.load(self, property: index)
        } catch let error as SwiftDataError where error.kind == .modelNotFound {
            // The row was deleted elsewhere: the model says so, and the property reads as a
            // placeholder (SwiftData stops the process here).
            state.isDeleted = true
            Diagnostics.report("\(name) was read after its row was deleted elsewhere: it reads as a placeholder, and the model reports isDeleted")
        } catch {
            // A getter cannot throw: the property reads as a placeholder, and the context's next
            // fetch or save throws the error.
            context.deferReadFailure(error)
            Diagnostics.report("could not load \(name): \(error); it reads as a placeholder, and the context's next fetch or save throws the error")
        }
    }

    /// The error thrown when a property that was never loaded is written to the store.
    public static func _osdUnloaded(_ property: String) -> any Error {
        SwiftDataError.modelValidationFailure(model: "\(Self.self)", property: property, reason: "the value was never loaded")
    }

    /// Takes on the identity and state of the model that `backingData` belongs to, if any: for
    /// `init(backingData:)` and `persistentBackingData`'s setter. Called by generated code.
    public func _osdAdopt(_ backingData: any BackingData<Self>) {
        guard let other = backingData._osdModel, other !== self else { return }
        _osdPrimaryKey = other._osdPrimaryKey
        _osdTemporaryKey = other._osdTemporaryKey
        _osdChangedProperties = other._osdChangedProperties
        _osdFlags = other._osdFlags
        _osdContextReference = other._osdContextReference
        _osdLocation = other._osdLocation
    }
}

/// A weak reference to a context, shared by every model the context manages. Generated storage
/// holds it; not API.
public final class _ContextReference {
    weak var context: ModelContext?
    /// The container of the context, for a stand-in once the context is gone: kept alive by the
    /// models too, since they may outlive both. (The main context's reference, which the
    /// container itself holds, refers to it weakly instead.)
    private var container: ModelContainer?
    private weak var weakContainer: ModelContainer?

    /// Records the context's container: strongly, unless the container holds the context.
    func setContainer(_ container: ModelContainer, strongly: Bool) {
        self.container = strongly ? container : nil
        weakContainer = container
    }
    /// The context that loads for the models after their own context was deallocated. Held
    /// strongly: the models it loads refer to it in turn, so it lives as long as they do.
    private var replacement: ModelContext?

    /// The context, or once it is gone, the stand-in that took its models in.
    var current: ModelContext? { context ?? replacement }

    /// The context to load through when `context` is gone: created once, then reused, so that
    /// every model it loads has one identity.
    func standIn() -> ModelContext? {
        if let replacement { return replacement }
        guard let container = container ?? weakContainer else { return nil }
        let standIn = ModelContext(container)
        standIn.isStandIn = true
        replacement = standIn
        return standIn
    }
}
