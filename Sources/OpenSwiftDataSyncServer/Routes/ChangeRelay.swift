import Foundation
import Logging
import PostgresNIO

/// Tells every server process on the database of each push: a push's transaction sends a
/// PostgreSQL notification naming the user (`pg_notify`, delivered when it commits), and each
/// process listens on the namespace's channel and wakes its own waiting pulls of that user
/// (``ChangeAnnouncer``), so that devices connected to any process learn of a change at once,
/// without polling.
struct ChangeRelay: Sendable {
    let client: PostgresClient
    let announcer: ChangeAnnouncer
    /// The channel: the namespace's name, hashed into the 63 bytes a channel name may take. A push
    /// that changed rows sends the user's name on it (`pg_notify`, in the push's transaction).
    let channel: String
    let logger: Logger

    init(client: PostgresClient, namespace: String, announcer: ChangeAnnouncer, logger: Logger) {
        self.client = client
        self.announcer = announcer
        self.logger = logger
        channel = Self.channel(of: namespace)
    }

    /// The channel of a namespace's notifications.
    static func channel(of namespace: String) -> String {
        "osd_sync_" + String(SyncDatabase.stableHash(namespace), radix: 16)
    }

    /// Listens for the notifications of every process's pushes, waking this process's waiting
    /// pulls, until the task is cancelled; a lost connection is opened again after a pause.
    func listen() async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: channel) { notifications in
                        for try await notification in notifications {
                            await announcer.announce(to: notification.payload)
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("Listening for other server processes' pushes failed; listening again in a second: \(String(reflecting: error))")
            }
            do {
                try await Task.sleep(for: .seconds(1))
            } catch {
                return   // cancelled: the server stops
            }
        }
    }
}
