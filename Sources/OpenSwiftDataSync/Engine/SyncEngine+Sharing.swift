import OpenSwiftData

extension SyncEngine {
    /// Shares a model, and what its to-many relationships with the `cascade` delete rule hold (to
    /// any depth), with another user, as CloudKit's `CKShare` shares a record and its children.
    ///
    /// The participant's devices receive the models with their next synchronization, and every
    /// change to them after; models either side adds under the shared model later are shared too.
    /// A read-write participant changes, adds and deletes them as the owner does; the server refuses
    /// a read-only participant's changes (``SyncError/Kind/refused``), and their device undoes them.
    /// Sharing a model already shared with the user changes the permission.
    ///
    /// ```swift
    /// try await engine.share(trip, with: "bob", permission: .readWrite)
    /// ```
    ///
    /// The engine first pushes what is pending, so that the server holds the model.
    ///
    /// - Returns: The share, as every device of either user reads it (``shares(of:)``).
    /// - Throws: A ``SyncError``: ``SyncError/Kind/rejected`` for a model that is not saved, that
    ///   another user owns, or a participant who is the owner.
    @discardableResult
    nonisolated(nonsending)
    public func share(_ model: some PersistentModel, with user: String, permission: SyncSharePermission) async throws -> SyncShare {
        let id = model.persistentModelID
        return try await worker.share(id, with: user, permission: permission)
    }

    /// Stops sharing a model with a user: its owner revokes the share, or the participant leaves
    /// it (passing their own name). The shared models leave every device of the participant (their
    /// changes not yet sent are dropped); the owner's stay.
    ///
    /// - Throws: A ``SyncError`` of kind ``SyncError/Kind/rejected`` when the model is not shared
    ///   with the user by or with the engine's user.
    nonisolated(nonsending)
    public func stopSharing(_ model: some PersistentModel, with user: String) async throws {
        let id = model.persistentModelID
        try await worker.stopSharing(id, with: user)
    }

    /// The shares of a model the engine's user takes part in: as its owner, every participant;
    /// as a participant, the owner's share with each participant. For a view that says
    /// "Shared by …" or lists who can see a model.
    nonisolated(nonsending)
    public func shares(of model: some PersistentModel) async throws -> [SyncShare] {
        let id = model.persistentModelID
        return try await worker.shares(of: id)
    }

    /// Every share the engine's user takes part in, as owner or participant.
    public func shares() async throws -> [SyncShare] {
        try await worker.shares(of: nil)
    }
}
