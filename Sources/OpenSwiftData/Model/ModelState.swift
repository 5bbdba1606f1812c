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
        guard let location else { return PersistentIdentifier(storeIdentifier: nil, entityName: Schema.entityName(for: type), key: key) }
        return PersistentIdentifier(location: location, key: key)
    }
}
