/// One store of a container, the capabilities it adopts, and the configuration it was opened for.
struct StoreSlot: Sendable {
    let store: any StoreBackend
    /// What the store does beyond the core seam, resolved once when it opened.
    let capabilities: StoreCapabilities
    /// What routing and saving need of the configuration.
    let configuration: Traits

    init(store: any StoreBackend, configuration: any DataStoreConfiguration) {
        self.store = store
        self.capabilities = StoreCapabilities(of: store)
        self.configuration = Traits(configuration)
    }

    /// The parts of a configuration that decide which models its store holds and whether it saves.
    struct Traits: Sendable {
        let name: String
        let schema: Schema?
        let allowsSave: Bool

        init(_ configuration: any DataStoreConfiguration) {
            name = configuration.name
            schema = configuration.schema
            allowsSave = (configuration as? any StoreBackendConfiguration)?.allowsSave ?? true
        }
    }
}

extension StoreSlot {
    /// The store's history transactions after `id`; none for a store that keeps no history.
    func historyTransactions(after id: Int64) throws -> [StoreHistoryTransaction] {
        try capabilities.history?.historyTransactions(after: id) ?? []
    }

    /// The number of the store's latest history transaction; 0 for a store that keeps no history.
    func latestHistoryTransaction() throws -> Int64 {
        try capabilities.history?.latestHistoryTransaction() ?? 0
    }

    /// The highest transaction number deleted from the store's history; 0 when none was.
    func historyDeletedThrough() throws -> Int64 {
        try capabilities.history?.historyDeletedThrough() ?? 0
    }

    /// The property lists the masks of the history's updates refer to; none for a store without
    /// history, whose masks (if any) refer to the models' lists now.
    var historyFieldLayouts: HistoryFieldLayouts {
        capabilities.history?.historyFieldLayouts ?? HistoryFieldLayouts()
    }

    /// A number that changes whenever another connection commits to the store, or `nil` when the
    /// store cannot tell.
    func externalCommitMarker() throws -> Int64? {
        try capabilities.externalCommits?.externalCommitMarker()
    }
}
