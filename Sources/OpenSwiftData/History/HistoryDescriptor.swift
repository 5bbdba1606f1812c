import Foundation

/// A description of the transactions to fetch from (or delete in) a store's history.
///
/// ```swift
/// var descriptor = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token })
/// let transactions = try context.fetchHistory(descriptor)
/// ```
public struct HistoryDescriptor<T: HistoryTransaction>: @unchecked Sendable {
    // @unchecked Sendable: Predicate and SortDescriptor are Sendable; the descriptor holds only them.

    /// The transactions to include, or `nil` for all of them.
    public var predicate: Predicate<T>?
    /// The order of the results; by default, the order the transactions were saved in.
    public var sortBy: [SortDescriptor<T>]
    /// The most transactions to return, or `nil` for all.
    public var fetchLimit: Int?

    /// Creates a descriptor of the transactions that match a predicate.
    public init(predicate: Predicate<T>? = nil) {
        self.predicate = predicate
        self.sortBy = []
    }

    /// Creates a descriptor of the transactions that match a predicate, in an order.
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>]) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}
