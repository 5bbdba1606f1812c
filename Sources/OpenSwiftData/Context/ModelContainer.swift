/// An object that manages an app's schema and model storage configuration.
///
/// ```swift
/// let container = try ModelContainer(for: Trip.self)
/// let context = ModelContext(container)
/// ```
///
/// A container is `Sendable`: share it between actors and create a context in each.
public final class ModelContainer: Sendable {
    /// The schema that maps the model classes to the stored data.
    public let schema: Schema
    /// The configurations of the container's stores.
    public let configurations: Set<ModelConfiguration>
    /// The plan that describes the evolution of the schema, if you gave one.
    // nonisolated(unsafe): a metatype has no state to race on; `SendableMetatype` needs Swift 6.2.
    nonisolated(unsafe) public let migrationPlan: (any SchemaMigrationPlan.Type)?
    /// The stores of the configurations, in the order given; every entity belongs to one of them.
    let stores: [StoreSlot]
    /// The position in `stores` of each entity's store, when there are several.
    let slotByEntity: [String: Int]
    @MainActor private var lazyMainContext: ModelContext?
    /// Whether `mainContext` was created, so that other contexts' saves are merged into it.
    private let hasMainContext = LockedValue(false)
    /// Whether a task looks for other processes' saves (``followExternalSaves()``).
    private let followsExternalSaves = LockedValue(false)
    /// Whether ``close()`` closed the container's stores.
    private let closed = LockedValue(false)
    /// The recent saves of the container's contexts.
    let saveLog: SaveLog
    /// The saves other containers and processes make to the same stores.
    let externalSaves: ExternalSaves
    /// Where the container reports what it does, if anywhere (``Observability``).
    let observer: StoreObserver?
    /// Where the container's model executors wait for a place when its stores serve a fixed
    /// number of calls at once.
    let executorLane: ModelExecutorLane?

    /// Creates a container for the given model classes and configurations.
    public convenience init(
        for forTypes: any PersistentModel.Type...,
        migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: ModelConfiguration...
    ) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Creates a container for the given model classes, stored as the given configurations
    /// describe: ``ModelConfiguration``s for the built-in SQLite store, or the configurations of
    /// other stores, such as `PostgresStoreConfiguration` or a ``DataStore`` of your own.
    ///
    /// ```swift
    /// let container = try ModelContainer(for: Trip.self, configurations: PostgresStoreConfiguration(url: server))
    /// ```
    ///
    /// To open these stores with a migration plan, pass a ``Schema`` and an array of
    /// configurations to `init(for:migrationPlan:configurations:)`.
    public convenience init(
        for forTypes: any PersistentModel.Type...,
        configurations: any DataStoreConfiguration...
    ) throws {
        try self.init(for: Schema(forTypes), configurations: configurations)
    }

    /// Creates a container for a schema and configurations.
    public convenience init(
        for givenSchema: Schema,
        migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: ModelConfiguration...
    ) throws {
        try self.init(for: givenSchema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Creates a container for a schema and an array of configurations: ``ModelConfiguration``s
    /// for the built-in SQLite store, or configurations of your own ``DataStore``s.
    ///
    /// - Parameters:
    ///   - givenSchema: The models the container manages.
    ///   - migrationPlan: How the schema evolved. A store recorded at one of the plan's
    ///     versions runs the stages from that version on, all or nothing; without a plan (or after
    ///     its stages), compatible changes migrate automatically, and a change that needs a custom
    ///     stage throws ``SwiftDataError/schemaMismatch`` with the file untouched. A custom store
    ///     receives the plan in its initializer.
    ///   - configurations: The stores and what each holds; a default ``ModelConfiguration`` when
    ///     empty.
    public convenience init(
        for givenSchema: Schema,
        migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: [any DataStoreConfiguration]
    ) throws {
        try self.init(for: givenSchema, migrationPlan: migrationPlan, configurations: configurations, observability: .none)
    }

    /// Creates a container for a schema and an array of configurations that reports what it does
    /// to a logger and a metrics factory. (An OpenSwiftData addition.)
    ///
    /// - Parameters:
    ///   - givenSchema: The models the container manages.
    ///   - migrationPlan: How the schema evolved, as for the initializer without `observability`.
    ///   - configurations: The stores and what each holds; a default ``ModelConfiguration`` when
    ///     empty.
    ///   - observability: Where the container reports its stores' opening and migrations, failed
    ///     and slow saves and fetches, and its metrics (``Observability``).
    public init(
        for givenSchema: Schema,
        migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: [any DataStoreConfiguration],
        observability: Observability
    ) throws {
        self.migrationPlan = migrationPlan
        let configurations: [any DataStoreConfiguration] = configurations.isEmpty ? [ModelConfiguration(schema: givenSchema)] : configurations
        let names = configurations.map(\.name)
        if Set(names).count != configurations.count {
            throw SwiftDataError(.duplicateConfiguration, reason: "Two configurations are named \(names)")
        }
        for configuration in configurations {
            if let configuration = configuration as? ModelConfiguration { try configuration.validate() }
            for entity in configuration.schema?.entities ?? [] where givenSchema.entitiesByName[entity.name] == nil {
                throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, reason: "\(entity.name) is in configuration \(configuration.name) but not in the container's schema")
            }
        }
        self.schema = givenSchema
        self.configurations = Set(configurations.compactMap { $0 as? ModelConfiguration })
        let observer = StoreObserver.make(observability)
        self.observer = observer
        // The stages of a migration plan open containers of their own: they report to this one's observer.
        // Opening happens once, at start-up: its waits are not reported as a server's requests' are.
        let (stores, slotByEntity, externalSaves) = try BlockingCallSite.$isSilenced.withValue(true) {
            let (stores, slotByEntity) = try StoreObserver.$opening.withValue(observer ?? StoreObserver.opening) {
                try Self.openStores(configurations, schema: givenSchema, migrationPlan: migrationPlan)
            }
            return (stores, slotByEntity, try ExternalSaves(stores: stores))
        }
        (self.stores, self.slotByEntity, self.externalSaves) = (stores, slotByEntity, externalSaves)
        self.executorLane = ModelExecutorLane.forStores(serving: stores.map(\.capabilities.connections), observer: observer)
        self.saveLog = SaveLog()
    }

    /// Opens the stores of the configurations, and routes each entity to the one that holds it.
    private static func openStores(
        _ configurations: [any DataStoreConfiguration], schema givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?
    ) throws -> (stores: [StoreSlot], slotByEntity: [String: Int]) {
        if configurations.count == 1 {
            let store = try openStore(configurations[0], schema: givenSchema, migrationPlan: migrationPlan)
            return ([StoreSlot(store: store, configuration: configurations[0])], [:])
        }
        let routes = try StoreRouting(schema: givenSchema, configurations: configurations.map(StoreSlot.Traits.init))
        let stores = try configurations.indices.map { index in
            let types = givenSchema.entities.filter { routes.slot[$0.name] == index }.map(\.modelType)
            let schema = Schema(types, version: givenSchema.version)
            let store = try openStore(configurations[index], schema: schema, migrationPlan: migrationPlan)
            return StoreSlot(store: store, configuration: configurations[index])
        }
        return (stores, routes.slot)
    }

    /// Opens the store a configuration describes: a store of OpenSwiftData's own behind the seam
    /// for a ``StoreBackendConfiguration`` (SQLite for a ``ModelConfiguration``, PostgreSQL), which
    /// recovers and migrates its store itself, or the configuration's own ``DataStore`` behind an
    /// adapter.
    private static func openStore(_ configuration: any DataStoreConfiguration, schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?) throws -> any StoreBackend {
        let observer = StoreObserver.opening
        let started = observer == nil ? 0 : StoreObserver.now()
        let kind = String(describing: type(of: configuration))
        do {
            let store: any StoreBackend
            if let configuration = configuration as? any StoreBackendConfiguration {
                store = try configuration.openBackend(schema: schema, migrationPlan: migrationPlan)
            } else {
                store = try configuration.openCustomStore(schema: schema, migrationPlan: migrationPlan)
            }
            observer?.opened(store: configuration.name, kind: kind, since: started)
            return store
        } catch {
            observer?.opened(store: configuration.name, kind: kind, since: started, error: error)
            throw error
        }
    }

    /// A container on stores opened elsewhere, one per configuration, routed as the public
    /// initializers route them: how tests put other backends behind the seam.
    init(for schema: Schema, stores: [(store: any StoreBackend, configuration: ModelConfiguration)]) throws {
        self.migrationPlan = nil
        self.schema = schema
        self.configurations = Set(stores.map(\.configuration))
        self.observer = nil
        self.stores = stores.map { StoreSlot(store: $0.store, configuration: $0.configuration) }
        self.slotByEntity = stores.count == 1 ? [:] : try StoreRouting(schema: schema, configurations: stores.map { StoreSlot.Traits($0.configuration) }).slot
        self.externalSaves = try ExternalSaves(stores: self.stores)
        self.saveLog = SaveLog()
        self.executorLane = ModelExecutorLane.forStores(serving: self.stores.map(\.capabilities.connections), observer: nil)
    }

    /// A container on the parts of another, released one: the successor a main context takes
    /// when the app keeps it and lets its container go.
    init(parts: Parts) {
        self.schema = parts.schema
        self.configurations = parts.configurations
        self.migrationPlan = parts.migrationPlan
        self.stores = parts.stores
        self.slotByEntity = parts.slotByEntity
        self.saveLog = parts.saveLog
        self.externalSaves = parts.externalSaves
        self.observer = parts.observer
        self.executorLane = parts.executorLane
    }

    /// The store that holds an entity's models.
    func store(for entity: Schema.Entity) -> any StoreBackend {
        let index = slot(forEntityNamed: entity.name)
        // Through the buffer, only the store is copied out of its slot, not the whole slot. The
        // index is one of `stores`' (a single store's 0, or the routing made with the stores).
        return stores.withUnsafeBufferPointer { slots in slots[index].store }
    }

    /// The store that holds an entity's models, with its capabilities.
    func storeSlot(for entity: Schema.Entity) -> StoreSlot {
        stores[slot(forEntityNamed: entity.name)]
    }

    /// The position in `stores` of the store that holds an entity's models.
    func slot(forEntityNamed name: String) -> Int {
        stores.count == 1 ? 0 : slotByEntity[name] ?? 0
    }

    /// The main-actor context of the container. It saves automatically soon after a change.
    @MainActor public var mainContext: ModelContext {
        if let context = lazyMainContext { return context }
        let context = ModelContext(self)
        context.autosave.isMainContext = true
        context.autosaveEnabled = true
        // The container holds its main context: neither the context nor its models may hold it back.
        context.becomeMainContext(of: self)
        lazyMainContext = context
        hasMainContext.store(true)
        followExternalSaves()
        return context
    }

    /// Records in the save log what other containers and processes saved since the last look.
    /// Returns whether they saved anything; the main context then merges it soon.
    func pullExternalSaves() throws -> Bool {
        let found = try externalSaves.pull(into: saveLog, stores: stores, source: ObjectIdentifier(externalSaves))
        if found, hasMainContext.load() {
            Task { @MainActor in self.lazyMainContext?.mergeChangesFromOtherContexts() }
        }
        return found
    }

    /// Takes note of the history transaction a save of this container recorded, reading what
    /// others saved before it when its number says they did. Returns whether they saved anything.
    func noteOwnTransaction(_ id: Int64, inStoreAt index: Int) throws -> Bool {
        let found = try externalSaves.noteOwnTransaction(id, inStoreAt: index, into: saveLog, stores: stores, source: ObjectIdentifier(externalSaves))
        if found, hasMainContext.load() {
            Task { @MainActor in self.lazyMainContext?.mergeChangesFromOtherContexts(lookingOutside: false) }
        }
        return found
    }

    /// Looks for other processes' saves twice a second while the container lives, so that the
    /// main context and the results observers show them without being asked. Starts one task,
    /// however often it is called.
    func followExternalSaves() {
        let started = followsExternalSaves.withValue { follows in
            defer { follows = true }
            return follows
        }
        guard !started else { return }
        Task { [weak self] in
            while true {
                do { try await Task.sleep(nanoseconds: 500_000_000) } catch { return }   // cancelled
                guard let self, !self.closed.load() else { return }
                do {
                    _ = try self.pullExternalSaves()
                } catch {
                    // Nothing was merged, so the next look retries; the main context's next fetch
                    // or save throws the error, as for any read that fails where the API cannot throw.
                    Task { @MainActor in
                        self.lazyMainContext?.deferReadFailure(error)
                    }
                }
            }
        }
    }

    /// Closes the connections of the container's stores.
    ///
    /// Call it when a server shuts down, or before you move or delete a store's file: each store
    /// lets go of its file or its server connections as soon as the calls using them end. From
    /// then on, a fetch or save of any of the container's contexts throws
    /// ``SwiftDataError/storeUnavailable``; open a new container to go on. An in-memory store's
    /// models go with it. Calling this method again does nothing.
    ///
    /// SwiftData has no such method: its stores close when their container is deallocated, which
    /// a server cannot time (contexts, model actors and models keep the container alive).
    public func close() {
        closed.store(true)
        for slot in stores { slot.store.close() }
    }

    /// Deletes every model in the container's stores.
    public func erase() throws {
        for slot in stores { try slot.store.eraseAll() }
    }

    /// Deletes every model in the container's store.
    @available(*, deprecated, renamed: "erase()")
    ///
    /// This method cannot throw: a failure is reported through ``OpenSwiftDataDiagnostics``; call
    /// ``erase()`` to handle it.
    public func deleteAllData() {
        do {
            try erase()
        } catch {
            Diagnostics.report("deleteAllData() failed: \(error)")
        }
    }

    /// The changes of every save in any of the container's contexts, from now on.
    ///
    /// ```swift
    /// for await changes in container.savedChanges() {
    ///     print("\(changes.insertedIdentifiers.count) inserted")
    /// }
    /// ```
    public func savedChanges() -> AsyncStream<ModelContext.SavedChanges> {
        saveLog.stream()
    }

    /// Records a save and, when another context made it, brings the main context up to date soon.
    func didSave(_ changes: ModelContext.SavedChanges, in context: ModelContext) {
        saveLog.record(changes, from: ObjectIdentifier(context))
        guard !context.autosave.isMainContext, hasMainContext.load() else { return }
        Task { @MainActor in
            self.lazyMainContext?.mergeChangesFromOtherContexts()
        }
    }
}
