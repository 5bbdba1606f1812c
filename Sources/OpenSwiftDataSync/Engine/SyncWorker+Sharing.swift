import OpenSwiftData

extension SyncWorker {
    /// Shares a model of the store with a user, once the server holds it.
    func share(_ model: PersistentIdentifier, with participant: String, permission: SyncSharePermission) async throws -> SyncShare {
        let id = try await serverID(of: model, synchronizingFirst: true)
        let shares = try await transport.share(ShareRequest(id: id, participant: participant, permission: permission)).shares
        guard let share = shares.first(where: { $0.participant == participant }) else {
            throw SyncError(.serverFailure, "The server did not list the share of the \(model.entityName) \(id) with \(participant) it made")
        }
        return share
    }

    /// Ends a share of a model, and pulls: a participant who leaves it no longer holds its models.
    func stopSharing(_ model: PersistentIdentifier, with participant: String) async throws {
        let id = try await serverID(of: model, synchronizingFirst: false)
        _ = try await transport.share(ShareRequest(id: id, participant: participant, permission: nil))
        try await synchronize()
    }

    /// The shares of a model the store holds, or of every model (`nil`) the user takes part in.
    func shares(of model: PersistentIdentifier?) async throws -> [SyncShare] {
        guard let model else { return try await transport.shares(of: nil).shares }
        return try await transport.shares(of: try await serverID(of: model, synchronizingFirst: false)).shares
    }

    /// The synchronized identifier of a model; with `synchronizingFirst`, after pushing what is
    /// pending, so that the server holds the model. Refusals of other changes do not stop it.
    private func serverID(of model: PersistentIdentifier, synchronizingFirst: Bool) async throws -> String {
        guard let key = model.storeKey else {
            throw SyncError(.rejected, "The \(model.entityName) is not saved yet: save its context, then share it")
        }
        if synchronizingFirst {
            do {
                try await synchronize()
            } catch let error as SyncError where error.kind == .refused {
                // Other changes were refused; the model was pushed if it could be.
            }
        }
        let store = try container.replicationStore(for: "SyncEngine")
        guard let id = try SyncState.id(ofEntity: model.entityName, key: key, in: store) else {
            throw SyncError(.rejected, "The \(model.entityName) has not reached the server yet: synchronize, then share it")
        }
        return id
    }
}
