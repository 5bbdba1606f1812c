/// A fetch in store terms: an entity's rows, a filter, an order and a page.
package struct StoreFetch {
    package let entity: Schema.Entity
    package var filter: QueryExpression?
    package var sort: [QuerySort] = []
    package var limit: Int?
    package var offset: Int?
    /// The descriptor the fetch came from, for stores that take fetch descriptors themselves
    /// (``StoreBackend/takesFetchDescriptors``).
    var source: (any DataStoreFetchSource)?
    /// The fetching context's editing state, for stores that take fetch descriptors.
    var editingState: EditingState?

    /// Whether the fetch asks for the first few rows in an order (at most 1,000, a sort given):
    /// a store may find their keys first and read only those rows.
    var isTopRows: Bool {
        guard let limit, !sort.isEmpty else { return false }
        return limit <= 1_000
    }
}

/// One row of a store's result, read column by column: the key in column 0, then the values its
/// ``RowShape`` (or a fetch's `attributes`) lists. Generated model code decodes it.
package typealias StoreRow = any _RowReader
