/// What OpenSwiftData knows about one model instance: its row, its context and its unsaved changes.
///
/// Not API: generated code calls into it. A model and its state belong to one context and are used
/// only in that context's isolation domain.
///
/// Its fields are read and written only in single, instantaneous accesses (never passed `inout`
/// across a call), so they opt out of the run-time exclusivity check
/// (`@exclusivity(unchecked)`), which cost about 80 instructions per access on every model
/// touched by an insert, a fetch or a save.
public class _ModelState {
    /// The context that manages the model, through the reference its context shares with all its
    /// models: one weak reference per context rather than one (and a side table) per model.
    @exclusivity(unchecked) private var contextReference: ContextReference?
    /// The context that manages the model, or `nil` (none yet, or it was deallocated).
    var context: ModelContext? {
        get { contextReference?.current }
        set { contextReference = newValue?.reference }
    }
    /// The row of the model in its store, or 0 before the first save.
    @exclusivity(unchecked) package var primaryKey: Int64 = 0
    /// A process-unique number that identifies the model before its first save.
    @exclusivity(unchecked) var temporaryKey: UInt64 = 0
    /// The name of the model's entity, set when a context first manages the model.
    @exclusivity(unchecked) var entityName: String?
    /// The identifier of the store that holds the model.
    @exclusivity(unchecked) var storeIdentifier: String?
    /// One bit per persisted property changed since the last save.
    @exclusivity(unchecked) var changedProperties: UInt64 = 0
    /// Whether the model is inserted in its context and not saved yet.
    @exclusivity(unchecked) var isInserted = false
    /// Whether the model is marked for deletion.
    @exclusivity(unchecked) package var isDeleted = false
    /// Whether the model was created from an identifier and none of its row is loaded yet.
    @exclusivity(unchecked) var isFault = false
    /// Whether the context already lists the model among its changed models.
    @exclusivity(unchecked) var isListedAsChanged = false

    init() {}


    /// Whether the model has unsaved changes.
    var hasChanges: Bool { isInserted || isDeleted || changedProperties != 0 }

    /// The model's identifier: permanent after its first save, temporary before.
    func persistentModelID<M: PersistentModel>(for type: M.Type) -> PersistentIdentifier {
        if temporaryKey == 0 && primaryKey == 0 { temporaryKey = PersistentIdentifier.nextTemporaryKey() }
        return PersistentIdentifier(
            storeIdentifier: storeIdentifier,
            entityName: entityName ?? Schema.entityName(for: type),
            key: primaryKey != 0 ? .permanent(primaryKey) : .temporary(temporaryKey)
        )
    }

    /// Records a change of the property at `index`. Called by generated setters.
    public final func _didChange<M: PersistentModel>(_ model: M, property index: Int) {
        changedProperties |= 1 << UInt64(index)
        if !isListedAsChanged, !isInserted, primaryKey != 0, let context {
            isListedAsChanged = true
            context.modelDidChange(model)
        }
    }

    /// Loads the value of the property at `index` from the store. Called by generated getters when
    /// the row was fetched without that property.
    public final func _fulfill<M: PersistentModel>(_ model: M, property index: Int) {
        // A model that outlived its context still loads what it has not loaded yet, through a
        // context of the same container that stands in for the deallocated one.
        if contextReference?.context == nil, primaryKey != 0, !isDeleted, let standIn = contextReference?.standIn() {
            standIn.adoptOrphan(model)
        }
        let name = "\(M.self).\(M.schemaMetadata[index].name)"
        guard let context, primaryKey != 0 else {
            Diagnostics.report("\(name) was read after the model's ModelContext and ModelContainer were deallocated (or the model was never saved): it reads as a placeholder; keep the container alive while you use the models it fetched")
            return
        }
        do {
            try context.load(model, property: index)
        } catch let error as SwiftDataError where error.kind == .modelNotFound {
            // The row was deleted elsewhere: the model says so, and the property reads as a
            // placeholder (SwiftData stops the process here).
            isDeleted = true
            Diagnostics.report("\(name) was read after its row was deleted elsewhere: it reads as a placeholder, and the model reports isDeleted")
        } catch {
            // A getter cannot throw: the property reads as a placeholder, and the context's next
            // fetch or save throws the error.
            context.deferReadFailure(error)
            Diagnostics.report("could not load \(name): \(error); it reads as a placeholder, and the context's next fetch or save throws the error")
        }
    }

    /// The error thrown when a property that was never loaded is written to the store.
    public static func unloaded(_ type: Any.Type, _ property: String) -> any Error {
        SwiftDataError.modelValidationFailure(model: "\(type)", property: property, reason: "the value was never loaded")
    }
}

/// A weak reference to a context, shared by every model the context manages.
final class ContextReference {
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
