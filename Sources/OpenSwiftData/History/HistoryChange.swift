/// One model's change in a recorded save.
///
/// ```swift
/// switch change {
/// case .insert(let insert as DefaultHistoryInsert<Trip>): print("new trip", insert.changedPersistentIdentifier)
/// case .update(let update as DefaultHistoryUpdate<Trip>): print(update.updatedAttributes)
/// case .delete(let deletion as DefaultHistoryDelete<Trip>): print(deletion.tombstone[\.name] as? String ?? "")
/// default: break
/// }
/// ```
public enum HistoryChange: Sendable {
    /// A model was inserted.
    case insert(any HistoryInsert)
    /// A model's attributes or relationships changed.
    case update(any HistoryUpdate)
    /// A model was deleted.
    case delete(any HistoryDelete)

    /// The identifier of the model that changed.
    public var changedPersistentIdentifier: PersistentIdentifier {
        switch self {
        case .insert(let change): change.changedPersistentIdentifier
        case .update(let change): change.changedPersistentIdentifier
        case .delete(let change): change.changedPersistentIdentifier
        }
    }
}

/// An insertion recorded in a store's history.
public protocol HistoryInsert<Model>: Sendable {
    /// The class of the inserted model.
    associatedtype Model: PersistentModel
    /// The type of the change's identifier.
    associatedtype ChangeIdentifier: Hashable & Sendable
    /// The type of the transaction's identifier.
    associatedtype TransactionIdentifier: Hashable & Sendable
    /// The identifier of this change.
    var changeIdentifier: ChangeIdentifier { get }
    /// The identifier of the inserted model.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The identifier of the transaction that made the change.
    var transactionIdentifier: TransactionIdentifier { get }
}

/// An update recorded in a store's history.
public protocol HistoryUpdate<Model>: Sendable {
    /// The class of the updated model.
    associatedtype Model: PersistentModel
    /// The type of the change's identifier.
    associatedtype ChangeIdentifier: Hashable & Sendable
    /// The type of the transaction's identifier.
    associatedtype TransactionIdentifier: Hashable & Sendable
    /// The identifier of this change.
    var changeIdentifier: ChangeIdentifier { get }
    /// The identifier of the updated model.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The identifier of the transaction that made the change.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The properties that changed (which, not their values).
    var updatedAttributes: [any PartialKeyPath<Model> & Sendable] { get }
}

/// A deletion recorded in a store's history.
public protocol HistoryDelete<Model>: Sendable {
    /// The class of the deleted model.
    associatedtype Model: PersistentModel
    /// The type of the change's identifier.
    associatedtype ChangeIdentifier: Hashable & Sendable
    /// The type of the transaction's identifier.
    associatedtype TransactionIdentifier: Hashable & Sendable
    /// The identifier of this change.
    var changeIdentifier: ChangeIdentifier { get }
    /// The identifier of the deleted model.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The identifier of the transaction that made the change.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The values of the model's `.preserveValueOnDeletion` attributes when it was deleted.
    var tombstone: HistoryTombstone<Model> { get }
}

/// An insertion of a model of class `Model` in an OpenSwiftData store's history.
public struct DefaultHistoryInsert<Model: PersistentModel>: HistoryInsert {
    /// The identifier of this change.
    public let changeIdentifier: Int64
    /// The identifier of the inserted model.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The number of the transaction that made the change.
    public let transactionIdentifier: Int64
}

/// An update of a model of class `Model` in an OpenSwiftData store's history.
public struct DefaultHistoryUpdate<Model: PersistentModel>: HistoryUpdate {
    /// The identifier of this change.
    public let changeIdentifier: Int64
    /// The identifier of the updated model.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The number of the transaction that made the change.
    public let transactionIdentifier: Int64
    /// The properties that changed, in declaration order.
    public let updatedAttributes: [any PartialKeyPath<Model> & Sendable]

    /// Whether the property at a key path changed.
    public func containsAttribute(_ keyPath: PartialKeyPath<Model>) -> Bool {
        updatedAttributes.contains { $0 == keyPath }
    }
}

/// A deletion of a model of class `Model` in an OpenSwiftData store's history.
public struct DefaultHistoryDelete<Model: PersistentModel>: HistoryDelete {
    /// The identifier of this change.
    public let changeIdentifier: Int64
    /// The identifier of the deleted model.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The number of the transaction that made the change.
    public let transactionIdentifier: Int64
    /// The values of the model's `.preserveValueOnDeletion` attributes when it was deleted.
    public let tombstone: HistoryTombstone<Model>
}

/// The values a deleted model's `.preserveValueOnDeletion` attributes had, by key path.
///
/// ```swift
/// let name = deletion.tombstone[\.name] as? String
/// ```
public struct HistoryTombstone<Model: PersistentModel>: Sequence, Sendable {
    /// One preserved value and the key path of its attribute.
    public typealias Element = (keyPath: any PartialKeyPath<Model> & Sendable, value: any Sendable)

    let values: [Element]

    /// The preserved value of the attribute at a key path, or `nil` when it was not preserved
    /// (or was `nil`).
    public subscript(keyPath: PartialKeyPath<Model>) -> (any Sendable)? {
        values.first { $0.keyPath == keyPath }?.value
    }

    /// Iterates over the preserved values.
    public func makeIterator() -> IndexingIterator<[Element]> { values.makeIterator() }
}
