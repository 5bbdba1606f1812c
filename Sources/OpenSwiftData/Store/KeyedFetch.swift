/// A fetch prepared once and run many times over a few keys: the rows it selects among them, in
/// no particular order. Live results run one after each save, to learn which of the changed rows
/// match their predicate now (``StoreBackend/keyedFetch(_:attributes:)``).
package protocol KeyedFetch {
    /// Calls `body` with each row among `keys` that the fetch selects.
    func forEachRow(keys: [Int64], _ body: (StoreRow) throws -> Void) throws
}

/// The keyed fetch of a store that compiles nothing ahead: the keys join the filter at each run.
struct FilteringKeyedFetch: KeyedFetch {
    let store: any StoreBackend
    let fetch: StoreFetch
    let attributes: [Int]?

    func forEachRow(keys: [Int64], _ body: (StoreRow) throws -> Void) throws {
        let among = QueryExpression.inList(.key(scope: 0), keys.map { .integer($0) })
        var keyed = StoreFetch(entity: fetch.entity, filter: fetch.filter.map { .and($0, among) } ?? among)
        keyed.source = fetch.source
        keyed.editingState = fetch.editingState
        try store.forEachRow(keyed, attributes: attributes, body)
    }
}

extension StoreBackend {
    /// Prepares the filter of `fetch` to run over keys, by adding the keys to it at each run.
    package func keyedFetch(_ fetch: StoreFetch, attributes: [Int]?) throws -> any KeyedFetch {
        FilteringKeyedFetch(store: self, fetch: fetch, attributes: attributes)
    }
}
