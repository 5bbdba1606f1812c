import Foundation

/// A type that describes one save recorded in a store's history.
public protocol HistoryTransaction: Hashable, Identifiable, Sendable {
    /// The type of the transaction's token.
    associatedtype TokenType: HistoryToken
    /// The type of the transaction's identifier.
    associatedtype TransactionIdentifier: Hashable & Sendable

    /// The author of the save, the saving context's ``ModelContext/author``.
    var author: String? { get }
    /// The changes the save made: inserts, then updates, then deletions.
    var changes: [HistoryChange] { get }
    /// The identifier of the store that recorded the save.
    var storeIdentifier: String { get }
    /// When the save happened.
    var timestamp: Date { get }
    /// The token that marks the point just after this transaction.
    var token: TokenType { get }
    /// The identifier of the transaction, increasing with each save.
    var transactionIdentifier: TransactionIdentifier { get }
}

/// One save recorded in the history of an OpenSwiftData store.
public struct DefaultHistoryTransaction: HistoryTransaction {
    /// The transaction's token type.
    public typealias TokenType = DefaultHistoryToken
    /// The transaction's identifier type: a number that increases with each save.
    public typealias TransactionIdentifier = Int64

    /// The number of the transaction in its store, increasing with each save and never reused.
    public let transactionIdentifier: Int64
    /// The token that marks the point just after this transaction.
    public let token: DefaultHistoryToken
    /// The author of the save, the saving context's ``ModelContext/author``.
    public let author: String?
    /// The bundle identifier (or the executable's name) of the process that saved.
    public let bundleIdentifier: String
    /// The process identifier of the process that saved.
    public let processIdentifier: String
    /// The identifier of the store that recorded the save.
    public let storeIdentifier: String
    /// When the save happened.
    public let timestamp: Date
    /// The changes the save made: inserts, then updates, then deletions, each in the order made.
    public let changes: [HistoryChange]

    /// The transaction's identity, its ``transactionIdentifier``.
    public var id: Int64 { transactionIdentifier }

    /// Transactions are equal when they are the same transaction of the same store.
    public static func == (lhs: DefaultHistoryTransaction, rhs: DefaultHistoryTransaction) -> Bool {
        lhs.transactionIdentifier == rhs.transactionIdentifier && lhs.storeIdentifier == rhs.storeIdentifier
    }

    /// Hashes the store and the transaction number.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storeIdentifier)
        hasher.combine(transactionIdentifier)
    }
}

/// A store that keeps a history of its saves: OpenSwiftData's SQLite store does.
public protocol HistoryProviding {
    /// The type of the store's transactions.
    associatedtype HistoryType: HistoryTransaction
    /// The type of the store's transactions.
    static var historyType: HistoryType.Type { get }
    /// Returns the transactions that match a descriptor.
    func fetchHistory(_ descriptor: HistoryDescriptor<HistoryType>) throws -> [HistoryType]
    /// Deletes the transactions that match a descriptor.
    func deleteHistory(_ descriptor: HistoryDescriptor<HistoryType>) throws
}
