/// The fetch descriptor a store fetch came from, for a custom store that takes SwiftData's fetch
/// requests: a ``FetchDescriptor`` of whatever model type.
package protocol DataStoreFetchSource {
    /// Fetches from a custom store with the descriptor's predicate and sort, asking again without
    /// either when the store declines it, and never with a page: the context filters, sorts and
    /// pages what the store returns.
    func snapshots<Store: DataStore>(from store: Store, editingState: EditingState) throws
        -> (fetched: [Store.Snapshot], related: [PersistentIdentifier: Store.Snapshot])
}

extension FetchDescriptor: DataStoreFetchSource {
    package func snapshots<Store: DataStore>(from store: Store, editingState: EditingState) throws
        -> (fetched: [Store.Snapshot], related: [PersistentIdentifier: Store.Snapshot]) {
        var descriptor = self
        descriptor.fetchLimit = nil
        descriptor.fetchOffset = nil
        while true {
            do {
                let result = try store.fetch(DataStoreFetchRequest(descriptor: descriptor, editingState: editingState))
                return (result.fetchedSnapshots, result.relatedSnapshots)
            } catch DataStoreError.preferInMemoryFilter where descriptor.predicate != nil {
                descriptor.predicate = nil
            } catch DataStoreError.preferInMemorySort where !descriptor.sortBy.isEmpty {
                descriptor.sortBy = []
            }
        }
    }
}
