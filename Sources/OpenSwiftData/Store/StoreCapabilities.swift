/// What a store does beyond the core of ``StoreBackend``, each a protocol of its own that a store
/// adopts, resolved once when its container opens it (``StoreCapabilities``). A store that adopts
/// none still serves every SwiftData call: the context does the rest in Swift (delete rules,
/// updates and aggregates over the models it loads) or reports nothing (no history, no other
/// writers seen).

/// A store that keeps the history of its saves: the transactions ``ModelContext/fetchHistory(_:)``
/// returns, and the outbox and change feed of other contexts' merges.
package protocol HistoryRecordingStore: StoreBackend {
    /// The saved transactions with a number above `id`, in order (all of them for 0).
    func historyTransactions(after id: Int64) throws -> [StoreHistoryTransaction]
    /// The property lists the masks of the history's updates refer to (``HistoryFieldLayouts``).
    var historyFieldLayouts: HistoryFieldLayouts { get }
    /// The number of the latest transaction in the history, or 0.
    func latestHistoryTransaction() throws -> Int64
    /// Deletes the given transactions from the history.
    func deleteHistory(transactions ids: [Int64]) throws
    /// The highest transaction number ever deleted from the history, or 0: a token older than it
    /// has lost part of what came after it.
    func historyDeletedThrough() throws -> Int64
}

/// A custom store whose history is of its own type (a ``DataStore`` that adopts
/// ``HistoryProviding``).
package protocol HistoryProvidingStore: StoreBackend {
    /// The transactions the store returns for a descriptor of its transaction type, or `nil`
    /// for a descriptor of another type.
    func providedHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T]?
    /// Has the store delete its transactions; `false` for a descriptor of another type.
    func deleteProvidedHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> Bool
}

/// A store that computes aggregates of one attribute itself.
package protocol AggregatingStore: StoreBackend {
    /// Computes `aggregate` of one attribute over the rows the fetch selects (a fetch without a
    /// page: which rows a page holds depends on the statement where its sort leaves ties) and
    /// calls `body` with a row whose column 0 holds it: NULL when no row has a value, and for
    /// ``StoreAggregate/sum`` the exact sum as a 64-bit integer, for
    /// ``StoreAggregate/floatingPointSum`` a `Double`; for the aggregates that count
    /// (``StoreAggregate/countsValues``), column 1 holds how many values (non-NULL ones) the sum
    /// added, as a 64-bit integer. Returns `false`, without calling `body`, when the store leaves
    /// this aggregate to the context (which then reads the values): a sum beyond 64 bits, or an
    /// aggregate it does not compute for the attribute's storage.
    func aggregate(_ aggregate: StoreAggregate, of attribute: Int, in fetch: StoreFetch, _ body: (StoreRow) throws -> Void) throws -> Bool

    /// Computes several aggregates over the rows the fetch selects in one pass, and calls `body`
    /// with a row that holds each one's columns as ``aggregate(_:of:in:_:)`` lays them out, from
    /// the column `body` is given for it. Returns `false`, without calling `body`, when the store
    /// leaves any of them to the context.
    func aggregates(_ requests: [AggregateRequest], in fetch: StoreFetch, _ body: (StoreRow, [Int32]) throws -> Void) throws -> Bool
}

extension AggregatingStore {
    /// One aggregate as ``aggregate(_:of:in:_:)`` computes it; several are left to the context.
    package func aggregates(_ requests: [AggregateRequest], in fetch: StoreFetch, _ body: (StoreRow, [Int32]) throws -> Void) throws -> Bool {
        guard requests.count == 1, let request = requests.first else { return false }
        return try aggregate(request.aggregate, of: request.attribute, in: fetch) { try body($0, [0]) }
    }
}

/// An aggregate of one attribute that ``AggregatingStore/aggregates(_:in:_:)`` computes.
package struct AggregateRequest: Sendable {
    package let aggregate: StoreAggregate
    package let attribute: Int

    package init(_ aggregate: StoreAggregate, of attribute: Int) {
        self.aggregate = aggregate
        self.attribute = attribute
    }
}

/// A store that applies delete rules itself when a save asks it to
/// (``StoreChanges/appliesDeleteRules``), and so deletes by predicate without the context loading
/// the models.
package protocol DeleteRuleApplyingStore: StoreBackend {}

/// A store that writes ``StoreChanges/batchUpdates`` (and reports their rows in
/// ``StoreSaveResult/batchUpdated``), so updates by predicate run without loading the models.
package protocol BatchUpdatingStore: StoreBackend {}

/// A store that can tell when a connection other than its own (another container, another
/// process) commits to it, so contexts merge those saves.
package protocol ExternalCommitWatchingStore: StoreBackend {
    /// A number that changes whenever a connection other than the store's own commits to it, or
    /// `nil` when the store cannot tell now.
    func externalCommitMarker() throws -> Int64?
    /// Whether ``externalCommitMarker()`` can lag behind a read: the store learns of other
    /// connections' commits from messages that arrive with its replies (PostgreSQL's
    /// notifications) rather than by asking, so a look made just before a read may miss a commit
    /// the read already sees. A context then looks again after its fetch.
    var externalCommitMarkerLags: Bool { get }
}

/// A store that works from SwiftData's own requests (a custom ``DataStore``): each fetch carries
/// its fetch descriptor and editing state, and the store hears when a context's editing state ends.
package protocol DescriptorFetchingStore: StoreBackend {
    /// Called when a context that may have used the store is released, with its editing state.
    func editingStateEnded(_ editingState: EditingState)
}

/// A store the tools' protocol can open beside the container, on a connection of its own: how a
/// container imports rows through ``StoreTooling`` (``ModelContainer/importAppleStore(at:ignoring:converting:)``).
package protocol ToolingOpeningStore: StoreBackend {
    /// The store opened as the tools open it, for writing inside ``StoreTooling/transaction(_:)``.
    func openTooling() throws -> any StoreTooling
}

/// A store that serves a fixed number of calls at once, one per connection to its server, and
/// makes further calls wait for a connection: its container's model actors then run at most that
/// many jobs at once, the others waiting without a thread (``ModelExecutorLane``).
package protocol ConnectionBoundStore: StoreBackend {
    /// How many calls the store serves at once.
    var connections: Int { get }
}

/// The capabilities a store adopts, resolved once when its container opens it.
package struct StoreCapabilities: Sendable {
    /// The store's history, if it keeps one.
    package let history: (any HistoryRecordingStore)?
    /// The history of its own type a custom store provides, if any.
    package let providedHistory: (any HistoryProvidingStore)?
    /// The store's own aggregates, if it computes them.
    package let aggregates: (any AggregatingStore)?
    /// How the store learns of other connections' commits, if it can.
    package let externalCommits: (any ExternalCommitWatchingStore)?
    /// The store that takes SwiftData's requests, if it is one.
    package let descriptorFetching: (any DescriptorFetchingStore)?
    /// Whether the store applies delete rules itself.
    package let appliesDeleteRules: Bool
    /// Whether the store writes updates by predicate itself.
    package let appliesBatchUpdates: Bool
    /// How many calls the store serves at once, if it serves a fixed number.
    package let connections: Int?

    /// The capabilities `store` adopts.
    package init(of store: any StoreBackend) {
        history = store as? any HistoryRecordingStore
        providedHistory = store as? any HistoryProvidingStore
        aggregates = store as? any AggregatingStore
        externalCommits = store as? any ExternalCommitWatchingStore
        descriptorFetching = store as? any DescriptorFetchingStore
        appliesDeleteRules = store is any DeleteRuleApplyingStore
        appliesBatchUpdates = store is any BatchUpdatingStore
        connections = (store as? any ConnectionBoundStore)?.connections
    }

    /// Whether each fetch carries its fetch descriptor and editing state for the store.
    package var takesFetchDescriptors: Bool { descriptorFetching != nil }
}
