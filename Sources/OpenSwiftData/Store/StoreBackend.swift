/// The seam between the SwiftData API and a store: what a ``ModelContainer`` and its contexts ask
/// of the store that keeps one configuration's models.
///
/// It speaks the schema's terms (``Schema/Entity``, property indices, the store-neutral
/// ``QueryExpression``), opaque 64-bit keys, rows in the ``RowShape`` of their entity, and change
/// sets; how the rows are laid out (tables, columns, link tables) is the store's own business.
/// The container opens a store through its configuration (``StoreBackendConfiguration``) and
/// closes it with ``close()``.
/// The SQLite store (`Store/SQLite`) is the first conformer.
///
/// This is the core every store offers; what a store does beyond it (history, delete rules and
/// updates by predicate in the store, aggregates, watching other writers) it adopts as separate
/// protocols (`StoreCapabilities.swift`), which the container resolves once when it opens the store.
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
    /// The shape of an entity's rows, or an error when the store does not hold the entity.
    func rowShape(of entity: Schema.Entity) throws -> RowShape
    /// Calls `body` with each row the fetch selects, in its order: the key, then `attributes` in
    /// order, or the shape's selected properties when `attributes` is `nil`.
    func forEachRow(_ fetch: StoreFetch, attributes: [Int]?, _ body: (StoreRow) throws -> Void) throws
    /// Prepares the filter of `fetch` (not its order or page) to run many times over a few keys.
    func keyedFetch(_ fetch: StoreFetch, attributes: [Int]?) throws -> any KeyedFetch
    /// The number of rows the fetch selects.
    func count(_ fetch: StoreFetch) throws -> Int
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
    /// Deletes every row of every entity, in one transaction.
    func eraseAll() throws
    /// Closes the store's connections, once the calls using them end; every later call throws
    /// ``SwiftDataError/storeUnavailable``. Closing a closed store does nothing.
    func close()
}

/// An aggregate a store may compute itself (``AggregatingStore/aggregate(_:of:in:_:)``).
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
