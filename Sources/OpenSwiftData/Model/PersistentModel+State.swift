/// How generated code and the core reach a model's state: the core's view of it, and what
/// generated getters and setters call when a property is read unloaded or changed.
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
        guard let context = _osdContextReference?.current else {
            // Its context was deallocated, and no stand-in loaded for it since: nothing will
            // save the change. Said, not dropped silently.
            if _osdContextReference != nil { _osdReportChangeWithoutContext() }
            return
        }
        _osdFlags.insert(.listedAsChanged)
        context.modelDidChange(self)
    }

    /// Reports a change to a saved model whose context is gone, which no save will write.
    func _osdReportChangeWithoutContext() {
        Diagnostics.report("\(type(of: self)) was changed after the ModelContext that fetched it was deallocated: no context holds the change, and no save will write it; keep the context alive while you change its models")
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
            do {
                try context.load(self, property: index)
            } catch let error as SwiftDataError where error.kind != .modelNotFound {
                // Once more: a read that failed once (an I/O error, a lock not granted in time)
                // often succeeds at once, and a getter that reads a placeholder is a wrong answer.
                try context.load(self, property: index)
            }
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
