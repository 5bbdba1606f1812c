/// An object that enables you to fetch, insert, and delete models, and save any changes to disk.
///
/// A context holds one instance per stored row (its identity map), tracks the changes made to its
/// models, and writes them in one transaction when you call ``save()``. A context is not
/// `Sendable`: use it in one isolation domain, and pass ``PersistentIdentifier``s between actors.
///
/// The context is SwiftData's facade over parts that each keep one concern (`Context/Parts`): the
/// identity map, the change tracker, the merge state, the failures kept for the next call that
/// can throw, how saves are recorded, and autosave.
public final class ModelContext {
    /// The container the context belongs to.
    public var container: ModelContainer {
        switch containerLink {
        case .owned(let container): container
        case .main(let link): link.container ?? adoptSuccessor(of: link)
        }
    }
    /// How the context holds its container: strongly, except the main context, which its
    /// container holds.
    var containerLink: ContainerLink
    /// A Boolean value that indicates whether the context saves pending changes automatically.
    ///
    /// As in SwiftData, the default is `false`, and the container's ``ModelContainer/mainContext``
    /// sets it to `true`. When it is `true`, a context created on the main thread saves soon after
    /// each change, on the main actor; a context of another actor (a `@ModelActor`'s, say) has no
    /// run loop to save on, so save it yourself.
    public var autosaveEnabled: Bool {
        get { autosave.isEnabled }
        set { autosave.isEnabled = newValue }
    }
    /// The author the history records for this context's saves.
    public var author: String? {
        get { saving.author }
        set { saving.author = newValue }
    }
    /// The identifier of this context's ``editingState``.
    var editingStateID: UUID {
        if let made = saving.madeEditingStateID { return made }
        let made = UUID()
        saving.madeEditingStateID = made
        return made
    }
    /// The state a custom ``DataStore`` receives with each fetch and save request of this
    /// context: an identifier that tells the context's requests from other contexts', and the
    /// context's ``author``.
    ///
    /// A store receives ``DataStore/initializeState(for:)`` before the context's first request,
    /// and ``DataStore/invalidateState(for:)`` when the context is released. Setting the property
    /// changes the context's ``author`` too.
    public var editingState: EditingState {
        get { EditingState(id: editingStateID, author: author) }
        set {
            saving.madeEditingStateID = newValue.id
            saving.author = newValue.author
        }
    }
    /// The object that provides undo support for the context.
    ///
    /// Assign an undo manager to enable undo: from then on, each insertion, deletion and change
    /// of a property registers the operation that reverts it (and the redo of that), including
    /// the inverse relationships and cascaded deletions the change brought with it. The undo
    /// manager can be the context's alone, or one you share with the rest of your app.
    ///
    /// Registering costs time and memory, and with an undo manager a deletion loads the model's
    /// values and relationships (so that undoing it after a save can insert it again), and a
    /// deletion by predicate loads the models it deletes. For expensive work, such as importing
    /// many models, set this property to `nil` first.
    ///
    /// The default value is `nil`.
    public var undoManager: UndoManager? {
        didSet { reference.registersUndo = undoManager != nil }
    }
    /// The reference the context's models hold to it.
    let reference = _ContextReference()

    /// The models the context holds, one per row. (Checked for exclusive access: forgetting a
    /// row releases its model inside the access, and a model's `deinit` is the app's code.)
    var identityMap = IdentityMap()
    /// What the context changed since its last save. Changed for every insert, and never across a
    /// call that could change it again (the closures its lists are filtered with only read the
    /// models, and a model it releases has left its context), so it skips the run-time
    /// exclusivity check.
    @exclusivity(unchecked) var tracker = ChangeTracker()
    /// How far the context merged other contexts' saves. Three numbers, read and set one at a
    /// time, so it skips the run-time exclusivity check.
    @exclusivity(unchecked) var merging: MergeState
    /// Errors kept for the next fetch or save.
    var failures = DeferredFailures()
    /// How the context's saves are recorded and announced. Read on every save, each access a
    /// single read or write whose only calls are the part's own (`didSave`'s `userInfo` is
    /// filled before the post and emptied after it, so an observer that saves again does not
    /// overlap), so it skips the run-time exclusivity check.
    @exclusivity(unchecked) var saving = SaveSettings()
    /// Whether and where the context saves by itself. Read on every change, and never accessed
    /// across a call (its fields are read and set one at a time), so it skips the run-time
    /// exclusivity check.
    @exclusivity(unchecked) var autosave: AutosaveState
    /// The entities and locations used last: read for every insert and every model made, only in
    /// this file, each access a single read or write with no call inside it, so it skips the
    /// run-time exclusivity check.
    @exclusivity(unchecked) private var lookups = ModelLookups()

    /// Keeps the first error of a read made where the API cannot throw, for the next fetch or save.
    func deferReadFailure(_ error: any Error) {
        failures.deferRead(error)
    }

    /// Creates a context for a container.
    ///
    /// A context created on the main thread belongs to the main actor, whether or not the code
    /// that creates it is main-actor isolated (a helper function, a convenience initializer, a
    /// synchronous test): when you turn on ``autosaveEnabled``, it saves there on the next turn of
    /// the main run loop after a change.
    ///
    /// - Parameter container: The container whose stores the context reads and writes.
    public init(_ container: ModelContainer) {
        self.containerLink = .owned(container)
        self.autosave = AutosaveState(isOnMainActor: MainQueue.isCurrent)
        self.merging = MergeState(seenGeneration: container.saveLog.latestGeneration)
        reference.context = self
        reference.setContainer(container, strongly: true)
    }

    deinit {
        let (schema, stores) = containerLink.schemaAndStores
        releaseRelationships(schema: schema)
        // A custom store heard of this context only if the context's editing state was made.
        if let made = saving.madeEditingStateID {
            let state = EditingState(id: made, author: saving.author)
            for slot in stores { slot.capabilities.descriptorFetching?.editingStateEnded(state) }
        }
    }

    /// Lets go of the relationships of the models this context holds.
    ///
    /// Related models refer to each other (an author's books, each book's author): once the
    /// context is gone, those references alone would keep them all alive for ever, and with them
    /// the container and its store connections. A saved model unloads its relationships, and one
    /// still in use reloads them through a stand-in context on next access. A model inserted or
    /// deleted and never saved is abandoned with the context: it holds no relationships any more,
    /// as a deleted model after its save.
    private func releaseRelationships(schema: Schema) {
        for (name, registered) in identityMap.registry where !registered.models.isEmpty {
            guard let entity = schema.entitiesByName[name], !entity.links.isEmpty else { continue }
            let properties = Array(entity.links.keys)
            for model in registered.models.values {
                if model._osdState.isDeleted {
                    dropRelationships(of: model, entity: entity)
                } else {
                    for property in properties { model._osdRelease(property: property) }
                }
            }
        }
        for (entity, model) in tracker.inserted { dropRelationships(of: model, entity: entity) }
    }

    /// Empties every relationship of a model that left the context deleted or abandoned: its
    /// optional to-one relationships read `nil` and its to-many relationships read empty, and it
    /// keeps no other model alive.
    func dropRelationships(of model: any PersistentModel, entity: Schema.Entity) {
        for property in entity.links.keys { model._osdSetRelated(property: property, to: []) }
    }

    /// Whether the context has unsaved inserts, changes or deletions.
    public var hasChanges: Bool { tracker.hasChanges }

    /// The models inserted since the last save.
    public var insertedModelsArray: [any PersistentModel] { tracker.insertedModels }
    /// The saved models changed since the last save.
    public var changedModelsArray: [any PersistentModel] {
        tracker.changed.filter { $0._osdState.changedProperties != 0 && !$0._osdState.isDeleted }
    }
    /// The models marked for deletion since the last save.
    public var deletedModelsArray: [any PersistentModel] { tracker.deleted }

    /// Registers a new model with the context; the next save inserts it into the store.
    ///
    /// Every new model reachable from `model` through its relationships is inserted too. A model
    /// that belongs to another context, or whose class is not in the container's schema, is not
    /// inserted: the refusal is reported through `OpenSwiftDataDiagnostics`, and the next
    /// ``save()`` throws it before writing anything.
    public func insert<T: PersistentModel>(_ model: T) {
        let state = model._osdState
        if let owner = state.context {
            guard owner === self else {
                return refuseInsert(SwiftDataError.modelValidationFailure(
                    model: "\(Swift.type(of: model))", property: "insert",
                    reason: "the model belongs to another ModelContext and was not inserted into this one; insert this context's instance (model(for: persistentModelID))"))
            }
            if state.isDeleted { undelete(model) }
            return
        }
        guard let entity = insertOne(model) else { return }
        insertReachable(from: model, entity: entity)
    }

    /// Registers one new model, without following its relationships; returns its entity, or `nil`
    /// when a context already manages the model.
    @discardableResult
    func insertOne<T: PersistentModel>(_ model: T) -> Schema.Entity? {
        let state = model._osdState
        guard state.context == nil else { return nil }
        // The model's own class: a `Photo` inserted as a `MediaItem` is stored as a `Photo`.
        let type = Swift.type(of: model)
        guard let entity = entity(ofClass: ObjectIdentifier(type)) else {
            refuseInsert(Self.notInSchema(type, " and was not inserted"))
            return nil
        }
        state.context = self
        state.location = location(of: entity)
        state.isInserted = true
        tracker.inserted.append((entity, model))
        if reference.registersUndo { registerUndoOfInsertion(model) }
        didMutate()
        return entity
    }

    /// Reports a model `insert` did not take, and keeps the first such error for the next save.
    private func refuseInsert(_ error: SwiftDataError) {
        Diagnostics.report("\(error)")
        failures.refuseInsert(error)
    }

    /// Marks a model for deletion; the next save removes it from the store.
    public func delete<T: PersistentModel>(_ model: T) {
        let state = model._osdState
        guard state.context === self, !state.isDeleted else { return }
        if state.isInserted {
            // Registered first, so that it is undone last, after the rules' changes below.
            if let manager = undoRecorder { registerUndo(with: manager) { $0.insertOne(model) } }
            tracker.inserted.removeAll { $0.model === model }
            state.isInserted = false
            // Never saved: its delete rules apply now, in memory only, and it leaves the
            // relationships no rule clears (the store never held those references).
            applyDeleteRulesToUnsaved(model)
            releaseFromOneWayHolders(model)
            state.context = nil
        } else {
            if reference.registersUndo { registerUndoOfDeletion(model) }
            state.isDeleted = true
            tracker.deleted.append(model)
            if undoRecorder != nil {
                // With undo, the delete rules apply now, as they would at the save (Core Data
                // applies them at the end of each event), so that each step of the undo stack
                // holds the graph as it is: cascaded models are deleted, and the model leaves the
                // relationships that hold it; undoing the deletion restores them all.
                propagatePendingDeletions()
                nullifyInverses(of: model, keeping: [])
                releaseFromOneWayHolders(model)
            }
        }
        didMutate()
    }

    /// Removes each model satisfying the predicate from the store during the next save, without
    /// loading the models. Registered models that match are marked deleted now.
    ///
    /// With `includeSubclasses` (the default), models of the subclasses of `model` that satisfy the
    /// predicate are removed too.
    ///
    /// With an ``undoManager``, the models that satisfy the predicate are loaded and deleted one
    /// by one, so that the deletion can be undone.
    public func delete<T: PersistentModel>(model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true) throws {
        let base = try requireEntity(for: T.self)
        if undoRecorder != nil {
            for candidate in try fetch(FetchDescriptor<T>(predicate: predicate))
            where !candidate._osdState.isInserted && (includeSubclasses || Swift.type(of: candidate) == T.self) {
                delete(candidate)
            }
            return
        }
        let filter: (any PersistentModel) throws -> Bool = { model in
            guard let predicate, let model = model as? T else { return true }
            return try predicate.evaluate(model)
        }
        for entity in includeSubclasses ? base.concreteEntities : [base] {
            for case let candidate as T in identityMap.registry[entity.name]?.models.values ?? [] where !candidate.isDeleted {
                if try predicate.map({ try $0.evaluate(candidate) }) ?? true { delete(candidate) }
            }
            let plan = self.plan(for: FetchDescriptor(predicate: predicate), entity: entity)
            tracker.pendingBatchDeletes.append((entity, filter, plan))
        }
        didMutate()
    }

    /// Discards pending inserts and deletes, restores changed models to their most recent
    /// committed state, and empties the undo stack.
    ///
    /// Inserted models leave the context, deleted ones are restored, and changed properties
    /// reload their saved values on next access.
    public func rollback() {
        if let undoManager { UndoRegistration.removeAllActions(of: undoManager) }
        for (_, model) in tracker.inserted {
            model._osdState.isInserted = false
            model._osdState.context = nil
        }
        for model in tracker.deleted { model._osdState.isDeleted = false }
        for model in tracker.changed {
            let state = model._osdState
            for index in 0..<64 where state.changedProperties & (1 << UInt64(index)) != 0 {
                model._osdUnload(property: index)
            }
            state.changedProperties = 0
            state.isListedAsChanged = false
        }
        tracker.removeAll()
        failures.crossContextRelationship = nil
    }

    /// Runs `block`, then saves. If `block` throws, the context's unsaved changes are rolled back.
    public func transaction(block: () throws -> Void) throws {
        do {
            try block()
        } catch {
            rollback()
            throw error
        }
        try save()
    }

    /// Processes pending changes: applies the `.cascade` rules of pending deletions and brings
    /// registered models up to date with other contexts' saves.
    public func processPendingChanges() {
        propagatePendingDeletions()
        mergeChangesFromOtherContexts()
    }

    /// Returns the model for an identifier: the registered instance, or one that loads its values
    /// from the store on first access.
    ///
    /// An identifier no model of this container can have (an entity its schema lacks, another
    /// store's identifier, an unsaved model of another context) returns a stand-in that reports
    /// `isDeleted` and is of no model class of yours, so `as? Trip` gives `nil`: an identifier
    /// decoded from a request never stops the process.
    public func model(for persistentModelID: PersistentIdentifier) -> any PersistentModel {
        mergeChangesFromOtherContexts()
        if let model = registeredModel(persistentModelID) { return model }
        guard let entity = container.schema.entitiesByName[persistentModelID.entityName],
              let primaryKey = persistentModelID.primaryKey, primaryKey != 0,   // 0 names no row
              persistentModelID.storeIdentifier.map({ $0 == container.store(for: entity).identifier }) ?? true
        else {
            return UnresolvedModel.standIn(for: persistentModelID)
        }
        return makeFault(entity.modelType, primaryKey: primaryKey, entity: entity)
    }

    /// Returns the model for an identifier if it exists: the registered instance, or one loaded
    /// from the store; `nil` if the store has no such row. A read that fails also gives `nil`, and
    /// its error is thrown by the next fetch or save (``throwDeferredReadFailure()``): this
    /// answers a subscript that cannot throw.
    func existingModel<T: PersistentModel>(for id: PersistentIdentifier) -> T? {
        existingModel(id) as? T
    }

    /// ``existingModel(for:)`` of any class.
    func existingModel(_ id: PersistentIdentifier) -> (any PersistentModel)? {
        mergeChangesFromOtherContexts()
        if let model = registeredModel(id) { return model._osdState.isDeleted ? nil : model }
        guard let primaryKey = id.primaryKey, let entity = container.schema.entitiesByName[id.entityName] else { return nil }
        let store = container.store(for: entity)
        guard id.storeIdentifier == store.identifier else { return nil }
        var result: (any PersistentModel)?
        do {
            let shape = try store.rowShape(of: entity)
            let registered = registeredModels(of: entity)
            try store.forEachRow(of: entity, primaryKeys: [primaryKey]) { row in
                result = try materialize(row, shape: shape, attributes: nil, registered: registered)
            }
        } catch {
            failures.readFailure = error
            return nil
        }
        return result
    }

    /// Returns the registered model for an identifier, or `nil` if the context has none.
    public func registeredModel<T: PersistentModel>(for persistentModelID: PersistentIdentifier) -> T? {
        registeredModel(persistentModelID) as? T
    }

    func registeredModel(_ id: PersistentIdentifier) -> (any PersistentModel)? {
        if let primaryKey = id.primaryKey { return identityMap.model(entityName: id.entityName, key: primaryKey) }
        return tracker.inserted.first { $0.model.persistentModelID == id }?.model
    }

    func makeFault<M: PersistentModel>(_ type: M.Type, primaryKey: Int64, entity: Schema.Entity) -> M {
        let model: M
        if M._osdHasConstants {
            // `let` properties are set once, as the model is made: they are read now.
            let source = ConstantSource(context: self, entity: entity, key: primaryKey, row: nil)
            model = ConstantSource.$current.withValue(source) { M._osdMake() }
            if let failure = source.failure { deferReadFailure(failure) }
        } else {
            model = M._osdMake()
        }
        // Defaults and an optional's implicit `nil` were assigned by the initializer; none is the
        // stored value, so every property starts unloaded and the first read loads the row.
        for index in entity.fields.indices { model._osdUnload(property: index) }
        model._osdState.isFault = true
        register(model, primaryKey: primaryKey, entity: entity)
        return model
    }

    /// Takes in a saved model whose own context was deallocated, so that what it loads from now on
    /// relates to it: the model joins this context's identity map unless the row already has a model.
    func adoptOrphan(_ model: some PersistentModel) {
        guard let entity = entity(of: model) else { return }
        let registered = registeredModels(of: entity)
        let key = model._osdState.primaryKey
        guard registered.model(forKey: key) == nil else { return }
        // Its state keeps the dead context's reference, which holds this context: held weakly
        // here, so that once nothing else holds the orphans, they and this context are released.
        registered.insert(model, forKey: key)
    }

    /// Adds a saved model to the identity map.
    func register(_ model: any PersistentModel, primaryKey: Int64, entity: Schema.Entity) {
        let state = model._osdState
        state.context = self
        state.primaryKey = primaryKey
        state.location = location(of: entity)
        registeredModels(of: entity).insert(model, forKey: primaryKey)
    }

    /// The identity map of one entity.
    func registeredModels(of entity: Schema.Entity) -> RegisteredModels {
        // A read first: the map of an entity is made once, and looked up for every related row.
        if let models = identityMap.registry[entity.name] { return models }
        return identityMap.models(of: entity)
    }

    /// Called by a model's state the first time a saved model changes.
    func modelDidChange(_ model: some PersistentModel) {
        tracker.changed.append(model)
        didMutate()
    }

    /// Loads one property of a saved model from the store (a fault, an external-storage value or
    /// a relationship).
    func load<M: PersistentModel>(_ model: M, property index: Int) throws {
        // The entity of the model's own class: a getter a subclass inherits calls this with its
        // superclass as `M`, whose table does not have the subclass's rows.
        let entity = try requireEntity(of: model)
        let store = container.store(for: entity)
        let shape = try store.rowShape(of: entity)
        let state = model._osdState
        var found = false
        if state.isFault {
            // The first read of a fault loads its whole row, except what was set since.
            try store.forEachRow(of: entity, primaryKeys: [state.primaryKey]) { row in
                found = true
                fill(model, from: row, shape: shape)
            }
            state.isFault = false
            guard found else {
                throw SwiftDataError(.modelNotFound, reason: "\(entity.name) row \(state.primaryKey) no longer exists")
            }
            if shape.eagerAttributes.contains(index) { return }
        }
        if let link = shape.links[index] {
            return try loadRelationship(model, link: link, shape: shape)
        }
        found = try store.loadAttribute(of: entity, primaryKey: state.primaryKey, attribute: index) { row in
            try model._osdDecode(property: index, from: row, at: 0, resolving: self)
        }
        guard found else {
            throw SwiftDataError(.modelNotFound, reason: "\(entity.name) row \(state.primaryKey) no longer exists")
        }
    }

    /// Decodes a fault's row into it, except the properties set since it became a fault.
    func fill(_ model: some PersistentModel, from row: StoreRow, shape: RowShape) {
        let state = model._osdState
        let fields = shape.entity.fields
        for (position, property) in shape.selectedProperties.enumerated()
        where fields[property].hasColumn && state.changedProperties & (1 << UInt64(property)) == 0 {
            // A value that fails to decode stays unloaded; reading it reports the error.
            try? model._osdDecode(property: property, from: row, at: Int32(position + 1), resolving: self)
        }
        state.isFault = false
    }

    /// Where the models of `entity` live (its name and its store), one object shared by all of them.
    func location(of entity: Schema.Entity) -> _ModelLocation {
        let key = ObjectIdentifier(entity)
        if let last = lookups.lastLocation, last.entity == key { return last.location }
        let location = lookups.locations[key] ?? _ModelLocation(entityName: entity.name, storeIdentifier: container.store(for: entity).identifier)
        lookups.locations[key] = location
        lookups.lastLocation = (key, location)
        return location
    }

    /// The entity and identity map of class `R`, looked up once per run of rows that relate to
    /// models of one entity.
    func relatedEntity<R: PersistentModel>(_ type: R.Type) throws -> (entity: Schema.Entity, models: RegisteredModels) {
        if let last = lookups.lastRelated, last.entity.modelType == R.self { return last }
        let entity = try requireEntity(for: R.self)
        let found = (entity: entity, models: registeredModels(of: entity))
        lookups.lastRelated = found
        return found
    }

    func entity<T: PersistentModel>(for type: T.Type) -> Schema.Entity? {
        entity(ofClass: ObjectIdentifier(type))
    }

    /// The entity of a model this context manages.
    func entity(of model: any PersistentModel) -> Schema.Entity? {
        entity(ofClass: ObjectIdentifier(Swift.type(of: model)))
    }

    /// The entity of a model class: one of the two used last, or a schema look-up.
    private func entity(ofClass type: ObjectIdentifier) -> Schema.Entity? {
        if let last = lookups.recentEntities.0, ObjectIdentifier(last.modelType) == type { return last }
        if let other = lookups.recentEntities.1, ObjectIdentifier(other.modelType) == type {
            lookups.recentEntities = (other, lookups.recentEntities.0)
            return other
        }
        let entity = container.schema.entitiesByType[type]
        if let entity { lookups.recentEntities = (entity, lookups.recentEntities.0) }
        return entity
    }

    func requireEntity<T: PersistentModel>(for type: T.Type) throws -> Schema.Entity {
        guard let entity = entity(for: type) else { throw Self.notInSchema(T.self) }
        return entity
    }

    /// The entity of a model's own class (not that of the static type it is seen as).
    func requireEntity(of model: any PersistentModel) throws -> Schema.Entity {
        guard let entity = entity(of: model) else { throw Self.notInSchema(Swift.type(of: model)) }
        return entity
    }

    /// The error for a model class the container's schema lacks.
    private static func notInSchema(_ type: any PersistentModel.Type, _ consequence: String = "") -> SwiftDataError {
        SwiftDataError(.configurationSchemaNotFoundInContainerSchema, reason: "\(type) is not in the container's schema\(consequence); add it to ModelContainer(for:)")
    }

    /// Schedules an autosave on the main actor after a change, when autosave is on.
    func didMutate() {
        // Most contexts are not the main actor's: they answer without reading their settings.
        guard autosave.runsOnMainActor, autosave.isEnabled, !autosave.isScheduled else { return }
        autosave.isScheduled = true
        // The context belongs to the main actor (it was created there and is not `Sendable`), so
        // the main actor's task below may use it.
        nonisolated(unsafe) weak let context = self
        Task { @MainActor in
            guard let context else { return }
            context.autosave.isScheduled = false
            guard context.autosaveEnabled, context.hasChanges else { return }
            do {
                try context.save()
            } catch {
                // An autosave has no caller to throw to. Nothing is lost: a failed save keeps the
                // changes pending, and the next explicit `save()` throws the error to its caller.
            }
        }
    }
}

extension ModelContext {
    /// Posted before a context saves. The notification's object is the context.
    public static let willSave = Notification.Name("OpenSwiftData.ModelContext.willSave")
    /// Posted after a context saved. Its `userInfo` holds the identifiers of the inserted, updated
    /// and deleted models under the keys of ``NotificationKey``.
    public static let didSave = Notification.Name("OpenSwiftData.ModelContext.didSave")

    /// The keys of a ``didSave`` notification's `userInfo`.
    public enum NotificationKey: String {
        case insertedIdentifiers = "inserted"
        case updatedIdentifiers = "updated"
        case deletedIdentifiers = "deleted"
        case queryGeneration
        case invalidatedAllIdentifiers = "invalidatedAll"
    }
}

/// The registered models of one entity, by primary key. A class so that a fetch looks it up once.
final class RegisteredModels {
    /// Changed only by single calls that run no code of the models' (a replaced or removed
    /// model is released after the call: ``DisplacedModel``), so its accesses never overlap and
    /// skip the run-time exclusivity check.
    @exclusivity(unchecked) var models = PrimaryKeyMap()
    /// The models of a stand-in context (``ModelContext/isStandIn``), held weakly: the orphans it
    /// loads for hold it (through their dead context's reference), and what it loads refers back
    /// to them (inverse relationships), so holding them too would keep everything alive for ever.
    var orphans: [Int64: WeakModel] = [:]
    /// Whether models are held weakly, in `orphans`: a stand-in context's.
    let holdsWeakly: Bool

    init(holdsWeakly: Bool = false) {
        self.holdsWeakly = holdsWeakly
    }

    /// Registers a model for a key.
    func insert(_ model: any PersistentModel, forKey key: Int64) {
        if holdsWeakly { orphans[key] = WeakModel(model: model) } else { _ = models.insert(model, for: key) }
    }

    /// The model registered for a key: one the context holds, or a live orphan it took in.
    func model(forKey key: Int64) -> (any PersistentModel)? {
        if let model = models[key] { return model }
        return holdsWeakly ? orphan(forKey: key) : nil
    }

    /// The model of class `M` registered for a key, without building an existential on the way:
    /// the look-up of a to-one relationship's model for each fetched row.
    func model<M: PersistentModel>(_ type: M.Type, forKey key: Int64) -> M? {
        if let model = models.model(M.self, forKey: key) { return model }
        return holdsWeakly ? orphan(forKey: key) as? M : nil
    }

    /// A live orphan a stand-in context took in; forgets one that is gone.
    private func orphan(forKey key: Int64) -> (any PersistentModel)? {
        guard let entry = orphans[key] else { return nil }
        if let orphan = entry.model { return orphan }
        orphans[key] = nil
        return nil
    }

    /// Forgets the model registered for a key.
    func remove(_ key: Int64) {
        _ = models.remove(key)
        if holdsWeakly { orphans[key] = nil }
    }
}

/// A weak reference to a model.
package struct WeakModel {
    package weak var model: (any PersistentModel)?

    package init(model: (any PersistentModel)?) {
        self.model = model
    }
}
