#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The connection the current thread is using for a store, so that a store call made while it is
/// in use, such as a to-one relationship resolved while a fetch reads its rows, runs on the same
/// connection instead of waiting for a lock it holds or a reader it took.
///
/// The calls that hold a connection run their body synchronously, so the body stays on the thread
/// that took the connection: a thread-local value names it. (A task-local value would do the same
/// at several times the cost, about 1,300 instructions a save, and a task created inside the body
/// would inherit it and use the connection after the body returned, without its lock.)
final class ConnectionInUse: @unchecked Sendable {
    // @unchecked Sendable: used only by the thread that holds the connection, for the duration of
    // the call that holds it (a store keeps its writer's, which each holder of the store's lock
    // uses in turn).

    /// The store the connection belongs to.
    unowned let store: SQLiteStore
    let connection: SQLiteConnection
    /// The connection in use on the thread when this one was named, while it is: a call to a
    /// store inside a call to another, inside a call to the first, still finds the first's.
    /// Read and set only by the thread that holds the connection, one access at a time.
    @exclusivity(unchecked) private var enclosing: ConnectionInUse?

    init(store: SQLiteStore, connection: SQLiteConnection) {
        self.store = store
        self.connection = connection
    }

    /// The connection the calling thread is using for `store` right now, if any.
    static func connection(for store: SQLiteStore) -> SQLiteConnection? {
        var inUse = current
        while let candidate = inUse {
            if candidate.store === store { return candidate.connection }
            inUse = candidate.enclosing
        }
        return nil
    }

    /// Runs `body` with this connection named as the calling thread's connection in use, then
    /// names the one in use before again (a body may use another store's connection). Inlined:
    /// called out of line, a save's body was wrapped in one more closure, which copied its change
    /// set into it.
    @inline(__always)
    func whileInUse<R>(_ body: (SQLiteConnection) throws -> R) rethrows -> R {
        enclosing = Self.current
        defer { enclosing = nil }
        guard let key = Self.key else {
            return try Self.$fallback.withValue(self) { try body(connection) }
        }
        pthread_setspecific(key, Unmanaged.passUnretained(self).toOpaque())
        defer {
            pthread_setspecific(key, enclosing.map { Unmanaged.passUnretained($0).toOpaque() })
            // Named by the thread-local value until here.
            withExtendedLifetime(self) {}
        }
        return try body(connection)
    }

    /// The connection in use on the calling thread.
    private static var current: ConnectionInUse? {
        guard let key else { return fallback }
        return pthread_getspecific(key).map { Unmanaged<ConnectionInUse>.fromOpaque($0).takeUnretainedValue() }
    }

    /// The thread-local key, made once per process; `nil` when the system has no key left to give
    /// (then the task-local ``fallback`` names the connection).
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()

    /// The connection in use when the process could not make a thread-local key.
    @TaskLocal private static var fallback: ConnectionInUse?
}
