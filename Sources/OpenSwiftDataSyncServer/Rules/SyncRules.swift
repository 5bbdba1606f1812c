import Foundation
import OpenSwiftDataSync

/// Decides, on the server, which changes a user may write and which models their devices hold,
/// within the ownership and shares the server always checks (a user reads and writes the models
/// their devices created and those shared with them, read-write; reads those shared read-only).
///
/// The server asks the rules about each model a push inserts, updates or deletes, before it
/// applies the push. A refused change is left out whole: nothing of it is written, the pushing
/// device receives the model as the server holds it (a model new to the server is deleted there),
/// and its engine reports the refusal (``SyncEngine/refusedChanges``, and a ``SyncError`` of kind
/// ``SyncError/Kind/refused`` in its status). The push's other changes are applied.
///
/// ```swift
/// struct OnlyAdminsSetPrices: SyncRules {
///     let admins: Set<String>
///     func check(_ change: SyncProposedChange) -> SyncRuleDecision {
///         guard change.model == "Trip", change.changes("price"), !admins.contains(change.user)
///         else { return .allow }
///         return .refuse("only admins may change a trip's price")
///     }
/// }
/// let server = try SyncServer(postgresURL: url, schema: schema, authenticator: tokens,
///                             rules: OnlyAdminsSetPrices(admins: ["ada"]))
/// ```
///
/// ``mayRead(_:)`` hides models from a user's devices: a model it refuses reaches them as a
/// deletion (the server keeps it), and a change to it is refused. The rules are asked as a model
/// changes and is sent: a model that a change makes readable again reaches the devices with that
/// change.
///
/// Rules run inside pushes and pulls: keep them quick, and decide from what they are given.
public protocol SyncRules: Sendable {
    /// Whether the change may be written.
    func check(_ change: SyncProposedChange) -> SyncRuleDecision
    /// Whether the user's devices hold the model. By default, every model the user owns.
    func mayRead(_ model: SyncReadableModel) -> Bool
}

extension SyncRules {
    /// Every model the user owns is read.
    public func mayRead(_ model: SyncReadableModel) -> Bool { true }
}

/// A model as the server holds it, as the rules see it when a user's device would receive it.
public struct SyncReadableModel: Sendable {
    /// The user whose device would receive the model.
    public let user: String
    /// The model's name.
    public let model: String
    /// The model's synchronized identifier.
    public let id: String
    /// The model's values by property name.
    public let values: [String: SyncPropertyValue]

    /// A model as the server presents it to the rules; for the tests of your rules.
    public init(user: String, model: String, id: String, values: [String: SyncPropertyValue]) {
        self.user = user
        self.model = model
        self.id = id
        self.values = values
    }
}

/// One model's change in a push, as the rules see it.
public struct SyncProposedChange: Sendable {
    /// What the change does to the model.
    public enum Kind: Sendable, Equatable {
        /// The model is new to the server.
        case insert
        /// The model exists on the server, and the change sets some of its properties.
        case update
        /// The change deletes the model.
        case delete
    }

    /// The user whose device pushed the change.
    public let user: String
    /// The model's name.
    public let model: String
    /// The model's synchronized identifier.
    public let id: String
    /// What the change does.
    public let kind: Kind
    /// The pushed values by property name: every property of an insert, the properties an update
    /// sets, none for a deletion.
    public let values: [String: SyncPropertyValue]
    /// The values the server holds by property name; empty for an insert.
    public let current: [String: SyncPropertyValue]

    /// A change as the server presents it to the rules; for the tests of your rules.
    public init(user: String, model: String, id: String, kind: Kind, values: [String: SyncPropertyValue], current: [String: SyncPropertyValue]) {
        self.user = user
        self.model = model
        self.id = id
        self.kind = kind
        self.values = values
        self.current = current
    }

    /// Whether the change sets `property` to a value other than the one the server holds.
    public func changes(_ property: String) -> Bool {
        guard let value = values[property] else { return false }
        return kind == .insert || current[property] != value
    }
}

/// What the rules decide about a change.
public enum SyncRuleDecision: Sendable, Equatable {
    /// The change is written.
    case allow
    /// Nothing of the change is written; the reason reaches the pushing device, for its user.
    case refuse(String)
}
