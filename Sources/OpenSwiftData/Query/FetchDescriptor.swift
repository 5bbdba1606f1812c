/// A type that describes the criteria, sort order, and any additional configuration to use when
/// performing a fetch.
public struct FetchDescriptor<T: PersistentModel> {
    /// The logical condition that models must satisfy to be included in the results.
    public var predicate: Predicate<T>?
    /// The sort order of the results.
    public var sortBy: [SortDescriptor<T>]
    /// The maximum number of models the fetch returns.
    ///
    /// Use `nil` to fetch every matching model, not `0`: a limit of zero or less fetches none.
    public var fetchLimit: Int?
    /// The number of matching models to skip before the first returned one; `nil`, or a number
    /// below one, skips none.
    public var fetchOffset: Int?
    /// Whether the fetch includes this context's unsaved inserts, changes and deletions. Defaults to `true`.
    public var includePendingChanges: Bool = true
    /// The key paths of the properties to load; the others load on first access. Empty means all.
    public var propertiesToFetch: [PartialKeyPath<T>] = []
    /// The key paths of the relationships whose models the fetch loads along with the results.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] = []

    /// Creates a fetch descriptor with a predicate and a sort order.
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}

extension FetchDescriptor: @unchecked Sendable {
    // @unchecked Sendable: the stored key paths are immutable values; Predicate and SortDescriptor are Sendable.
}
