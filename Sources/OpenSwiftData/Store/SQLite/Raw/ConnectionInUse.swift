/// The connection the current thread (or task) is using for a store, so that a store call made
/// while it is in use, such as a to-one relationship resolved while a fetch reads its rows, runs on
/// the same connection instead of waiting for a lock it holds or a reader it took.
final class ConnectionInUse: @unchecked Sendable {
    // @unchecked Sendable: bound as a task-local value, so it is read only by the thread or task
    // that bound it, for the duration of the call that holds the connection.

    /// The connection each thread or task is using right now, if any.
    @TaskLocal static var current: ConnectionInUse?

    /// The store the connection belongs to.
    unowned let store: SQLiteStore
    let connection: SQLiteConnection

    init(store: SQLiteStore, connection: SQLiteConnection) {
        self.store = store
        self.connection = connection
    }
}
