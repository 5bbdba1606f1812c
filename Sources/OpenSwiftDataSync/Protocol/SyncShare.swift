/// What a participant of a share may do with the shared models.
public enum SyncSharePermission: String, Codable, Hashable, Sendable {
    /// The participant's devices receive the shared models and every change to them; the server
    /// refuses the participant's changes, and their devices undo them.
    case readOnly
    /// The participant changes, adds and deletes the shared models as the owner does.
    case readWrite
}

/// A model one user shares with another, and what hangs off it: its to-many relationships whose
/// delete rule is `cascade`, to any depth, including models either side adds later.
///
/// The counterpart of a `CKShare` participant: ``owner`` shares the model with ``participant``,
/// with ``permission``. Every device of either user reads the shares they take part in
/// (``SyncEngine/shares(of:)``), for a view that says "Shared by …".
public struct SyncShare: Codable, Hashable, Sendable {
    /// The shared model's name.
    public var entity: String
    /// The shared model's synchronized identifier.
    public var id: String
    /// The user who owns the shared model.
    public var owner: String
    /// The user the model is shared with.
    public var participant: String
    /// What the participant may do.
    public var permission: SyncSharePermission

    /// Creates the value from its parts.
    public init(entity: String, id: String, owner: String, participant: String, permission: SyncSharePermission) {
        self.entity = entity
        self.id = id
        self.owner = owner
        self.participant = participant
        self.permission = permission
    }
}

/// A request to share a model with a user, or to stop sharing it (`permission` `nil`).
package struct ShareRequest: Codable, Sendable {
    /// The shared model's synchronized identifier.
    package var id: String
    package var participant: String
    package var permission: SyncSharePermission?

    package init(id: String, participant: String, permission: SyncSharePermission?) {
        self.id = id
        self.participant = participant
        self.permission = permission
    }
}

/// The shares a user takes part in, as owner or participant.
package struct SharesResponse: Codable, Sendable {
    package var shares: [SyncShare]

    package init(shares: [SyncShare]) {
        self.shares = shares
    }
}
