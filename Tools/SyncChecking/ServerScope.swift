import Foundation
import OpenSwiftDataSync
import OpenSwiftDataSyncServer
import PostgresNIO

/// Which models each user's devices hold, as the server decides it at the end of a run: the live
/// models the user owns and those the shares carry to them.
struct ServerScope {
    /// Each model's owner, by synchronized identifier (deleted ones' too, until trimmed).
    var owners: [String: String] = [:]
    /// The models not deleted.
    var live: Set<String> = []
    /// The models the shares carry to each participant.
    var shared: [String: Set<String>] = [:]

    /// The live models the user's devices hold.
    func visible(to user: String) -> Set<String> {
        owned(by: user).union(shared[user] ?? []).intersection(live)
    }

    /// The models the user owns, deleted ones too.
    func owned(by user: String) -> Set<String> {
        Set(owners.filter { $0.value == user }.keys)
    }

    static func read(postgresURL: String, namespace: String) async throws -> ServerScope {
        try await withCheckDatabase(postgresURL: postgresURL) { client, logger in
            var scope = ServerScope()
            let rows = try await client.query(PostgresQuery(unsafeSQL: "SELECT id, owner, deleted FROM \"\(namespace)\".rows"), logger: logger)
            for try await (id, owner, deleted) in rows.decode((String, String, Bool).self) {
                scope.owners[id] = owner
                if !deleted { scope.live.insert(id) }
            }
            let members = try await client.query(
                PostgresQuery(unsafeSQL: """
                    SELECT s.participant, m.id FROM "\(namespace)".shares s JOIN "\(namespace)".share_members m ON m.root = s.root
                    """),
                logger: logger)
            for try await (participant, id) in members.decode((String, String).self) { scope.shared[participant, default: []].insert(id) }
            return scope
        }
    }
}
