extension ModelContainer {
    /// What a container is made of: its schema, configurations and open stores, and the record of
    /// their saves. A second container on the same parts works on the same stores.
    struct Parts {
        let schema: Schema
        let configurations: Set<ModelConfiguration>
        let migrationPlan: (any SchemaMigrationPlan.Type)?
        let stores: [StoreSlot]
        let slotByEntity: [String: Int]
        let saveLog: SaveLog
        let externalSaves: ExternalSaves
        let observer: StoreObserver?
        let executorLane: ModelExecutorLane?
    }

    /// The container's parts, for a successor.
    var parts: Parts {
        Parts(
            schema: schema, configurations: configurations, migrationPlan: migrationPlan, stores: stores,
            slotByEntity: slotByEntity, saveLog: saveLog, externalSaves: externalSaves, observer: observer,
            executorLane: executorLane)
    }
}
