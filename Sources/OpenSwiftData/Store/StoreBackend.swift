/// The seam between the SwiftData API and a store: what a ``ModelContainer`` and its contexts ask
/// of the store that keeps one configuration's models.
///
/// It speaks the schema's terms (``Schema/Entity``, property indices, the store-neutral
/// ``QueryExpression``), opaque 64-bit keys, rows in the ``RowShape`` of their entity, and change
/// sets; how the rows are laid out (tables, columns, link tables) is the store's own business.
/// The SQLite store (`Store/SQLite`) is the first conformer.
///
/// Rules every store keeps:
/// - Stores never mutate models, except to hand an inserted model its key during a save, and
///   never call up into a context.
/// - A call made while rows are being read (a relationship resolved mid-fetch) is served without
///   taking a lock or a connection the reading call already holds.
/// - `save` writes all of a change set or nothing.
package protocol StoreBackend: AnyObject, Sendable {
    /// The identifier of the store, recorded in the identifiers of its models.
    var identifier: String { get }
    /// Whether the store can only be read.
    var isReadOnly: Bool { get }
    /// Whether the store evaluates `expression` itself. An expression it declines is evaluated in
    /// Swift (SwiftData's `DataStoreError.preferInMemoryFilter`): a fetch then gets a superset of
    /// the rows from the store, narrowed by the predicate in Swift.
    func canEvaluate(_ expression: QueryExpression) -> Bool
    /// Whether the store orders rows by `sort` itself; otherwise the sort runs in Swift
    /// (SwiftData's `DataStoreError.preferInMemorySort`).
    func canSort(by sort: [QuerySort]) -> Bool
    /// Whether the store wants the fetch descriptor each fetch came from (a custom ``DataStore``
    /// does), in ``StoreFetch/source``.
    var takesFetchDescriptors: Bool { get }
    /// The shape of an entity's rows, or an error when the store does not hold the entity.
    func rowShape(of entity: Schema.Entity) throws -> RowShape
    /// Calls `body` with each row the fetch selects, in its order: the key, then `attributes` in
    /// order, or the shape's selected properties when `attributes` is `nil`.
    func forEachRow(_ fetch: StoreFetch, attributes: [Int]?, _ body: (StoreRow) throws -> Void) throws
    /// Prepares the filter of `fetch` (not its order or page) to run many times over a few keys.
    func keyedFetch(_ fetch: StoreFetch, attributes: [Int]?) throws -> any KeyedFetch
    /// The number of rows the fetch selects.
    func count(_ fetch: StoreFetch) throws -> Int
    /// Computes `aggregate` of one attribute over the rows the fetch selects (a fetch without a
    /// page: which rows a page holds depends on the statement where its sort leaves ties) and
    /// calls `body` with a row whose column 0 holds it: NULL when no row has a value, and for
    /// ``StoreAggregate/sum`` the exact sum as a 64-bit integer, for
    /// ``StoreAggregate/floatingPointSum`` a `Double`; for the aggregates that count
    /// (``StoreAggregate/countsValues``), column 1 holds how many values (non-NULL ones) the sum
    /// added, as a 64-bit integer. Returns `false`, without calling
    /// `body`, when the store leaves the aggregate to the context (which then reads the values):
    /// a sum beyond 64 bits, or an aggregate it does not compute for the attribute's storage.
    func aggregate(_ aggregate: StoreAggregate, of attribute: Int, in fetch: StoreFetch, _ body: (StoreRow) throws -> Void) throws -> Bool
    /// The keys of the rows the fetch selects, in its order.
    func primaryKeys(_ fetch: StoreFetch) throws -> [Int64]
    /// Calls `body` with the full row of each key that still exists, in the order given.
    func forEachRow(of entity: Schema.Entity, primaryKeys: [Int64], _ body: (StoreRow) throws -> Void) throws
    /// Reads one property of one row: `body` gets a row whose column 0 is the property. Returns
    /// `false` when the row no longer exists.
    func loadAttribute(of entity: Schema.Entity, primaryKey: Int64, attribute: Int, _ body: (StoreRow) throws -> Void) throws -> Bool
    /// Whether the entity has a row with this key.
    func rowExists(of entity: Schema.Entity, key: Int64) throws -> Bool
    /// Calls `body` with each full row of `destination` that `link` relates to one of `owners`,
    /// and the owner's key: grouped by owner, each group in key order.
    func forEachRelatedRow(
        of link: RelationshipLink, from source: Schema.Entity, owners: [Int64], destination: Schema.Entity,
        _ body: (StoreRow, _ owner: Int64) throws -> Void
    ) throws
    /// Writes a change set in one transaction, and returns the keys it assigned.
    func save(_ changes: StoreChanges) throws -> StoreSaveResult
    /// Called when a context that may have used the store is released, with its editing state.
    func editingStateEnded(_ editingState: EditingState)
    /// Deletes every row of every entity, in one transaction.
    func eraseAll() throws
    /// The saved transactions with a number above `id`, in order (all of them for 0).
    func historyTransactions(after id: Int64) throws -> [StoreHistoryTransaction]
    /// The property lists the masks of the history's updates refer to (``HistoryFieldLayouts``).
    var historyFieldLayouts: HistoryFieldLayouts { get }
    /// The transactions a custom store that adopts ``HistoryProviding`` returns for a descriptor of
    /// its transaction type, or `nil` for a store that does not provide history of that type.
    func providedHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T]?
    /// Has a custom store that adopts ``HistoryProviding`` delete its transactions; `false` when it
    /// does not provide history of that type.
    func deleteProvidedHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> Bool
    /// The number of the latest transaction in the history, or 0.
    func latestHistoryTransaction() throws -> Int64
    /// Deletes the given transactions from the history.
    func deleteHistory(transactions ids: [Int64]) throws
    /// The highest transaction number ever deleted from the history, or 0: a token older than it
    /// has lost part of what came after it.
    func historyDeletedThrough() throws -> Int64
    /// Whether the store can apply delete rules itself when a save asks it to
    /// (``StoreChanges/appliesDeleteRules``); otherwise the context loads the models a rule-bearing
    /// deletion by predicate selects and applies the rules to them.
    var appliesDeleteRules: Bool { get }
    /// Whether the store writes ``StoreChanges/batchUpdates`` (and reports their rows in
    /// ``StoreSaveResult/batchUpdated``); otherwise the context loads the models and sets them.
    var appliesBatchUpdates: Bool { get }
    /// A number that changes whenever a connection other than the store's own commits to it (another
    /// container, another process), or `nil` when the store cannot tell.
    func externalCommitMarker() throws -> Int64?
    /// Whether ``externalCommitMarker()`` can lag behind a read: the store learns of other
    /// connections' commits from messages that arrive with its replies (PostgreSQL's
    /// notifications) rather than by asking, so a look made just before a read may miss a commit
    /// the read already sees. A context then looks again after its fetch.
    var externalCommitMarkerLags: Bool { get }
}

/// An aggregate a store may compute itself (``StoreBackend/aggregate(_:of:in:_:)``).
package enum StoreAggregate: Sendable {
    /// The sum of integers (`.integer` storage).
    case sum
    /// The sum of `Double`s as Swift's `+` adds them, one row after another in the fetch's
    /// order, NaN and infinities included (`.real` storage).
    case floatingPointSum
    /// The smallest value, of integers or dates (`.integer`, `.unsignedInteger`, `.date`).
    case minimum
    /// The largest value, of the same storages as ``minimum``.
    case maximum
    /// ``sum``, and how many values it added (for an average).
    case sumAndCount
    /// ``floatingPointSum``, and how many values it added (for an average).
    case floatingPointSumAndCount

    /// Whether the aggregate also counts the values it adds.
    package var countsValues: Bool { self == .sumAndCount || self == .floatingPointSumAndCount }

    /// The aggregate without its count.
    package var withoutCount: StoreAggregate {
        switch self {
        case .sumAndCount: .sum
        case .floatingPointSumAndCount: .floatingPointSum
        default: self
        }
    }

    /// The aggregate that also counts the values a sum adds (a sum's; others stay as they are).
    package var withCount: StoreAggregate {
        switch self {
        case .sum: .sumAndCount
        case .floatingPointSum: .floatingPointSumAndCount
        default: self
        }
    }
}

extension StoreBackend {
    /// Stores leave aggregates to the context unless they compute them.
    package func aggregate(_ aggregate: StoreAggregate, of attribute: Int, in fetch: StoreFetch, _ body: (StoreRow) throws -> Void) throws -> Bool { false }
    /// Stores work from the store-neutral filter and sort alone.
    package var takesFetchDescriptors: Bool { false }
    /// Stores leave delete rules to the context unless they say otherwise.
    package var appliesDeleteRules: Bool { false }
    /// Stores leave updates by predicate to the context unless they say otherwise.
    package var appliesBatchUpdates: Bool { false }
    /// Stores of OpenSwiftData's own keep no state per context.
    package func editingStateEnded(_ editingState: EditingState) {}
}
