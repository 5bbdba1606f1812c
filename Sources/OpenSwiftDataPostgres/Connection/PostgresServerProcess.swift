/// The server process that serves one connection: its process ID, and the time it started, which
/// tells it from a later process given the same ID (after the server restarted, say).
struct PostgresServerProcess: Sendable, Equatable {
    /// The process ID (`pg_backend_pid()`).
    let pid: Int32
    /// When the process started (`pg_stat_activity.backend_start`, as text).
    let start: String
}
