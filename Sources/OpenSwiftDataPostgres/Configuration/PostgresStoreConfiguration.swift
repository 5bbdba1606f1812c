import Foundation
import OpenSwiftData

/// A configuration that keeps a container's models in a PostgreSQL database.
///
/// Use it where one file on one machine is not enough: several server processes, or several
/// machines, that share one set of models. Pass it to a container as you would a
/// ``ModelConfiguration``:
///
/// ```swift
/// let url = URL(string: "postgres://app:secret@127.0.0.1:5432/trips")!
/// let container = try ModelContainer(
///     for: Trip.self,
///     configurations: PostgresStoreConfiguration(url: url)
/// )
/// ```
///
/// Each configuration keeps its tables in a PostgreSQL schema (a namespace) of its own, named by
/// the configuration's ``name``, so that several apps or tests can share one database. The first
/// container to open a configuration creates its namespace and tables; later ones check that the
/// recorded models match, and never change a namespace that holds something else.
public struct PostgresStoreConfiguration: DataStoreConfiguration, Sendable {
    /// The store a PostgreSQL configuration describes.
    public typealias Store = PostgresStore

    /// Whether the connection to the server is encrypted.
    ///
    /// The URL's `sslmode` (`disable`, `require`, `verify-ca`, `verify-full`) and `sslrootcert`
    /// have libpq's meanings; where they and this setting differ, the more careful wins.
    public enum TransportSecurity: Hashable, Sendable {
        /// TLS, with the server's certificate verified, when the server is on another host; none
        /// on the loopback interface (the default), unless the URL's `sslmode` asks for it.
        case automatic
        /// No TLS, unless the URL's `sslmode` asks for it.
        case disabled
        /// TLS, with the server's certificate verified: its chain against the system's trust roots
        /// (or the authorities of the URL's `sslrootcert` file) and its host name (only the chain
        /// with `sslmode=verify-ca`). A Unix-domain socket, which no network carries, is used
        /// without TLS, as with libpq.
        case required
    }

    /// The name of the configuration, and of the PostgreSQL schema (namespace) that holds its tables.
    public var name: String
    /// The models the store holds, or `nil` for all of the container's models.
    public var schema: Schema?
    /// The server and database, as `postgres://user:password@host:port/database`, or, through a
    /// Unix-domain socket, `postgres://user@/database?host=/var/run/postgresql` (libpq's forms).
    public var url: URL
    /// Whether the connection uses TLS.
    public var transportSecurity: TransportSecurity
    /// Whether contexts may save to the store.
    public var allowsSave: Bool
    /// The most connections the container opens for reads, besides its own.
    ///
    /// A container saves, and reads while no other read or save is running, on a connection of
    /// its own. A read that finds that connection busy (contexts on other threads or actors
    /// fetching or saving at the same time, as a server's requests do) runs on a connection for
    /// reads instead, opened when first needed and kept while the container lives; when all of
    /// them are busy it waits for the first to be free. Each read sees every save committed
    /// before it started, whichever connection it runs on. `0` runs every read on the
    /// container's own connection, one at a time.
    public var maximumReadConnections: Int
    /// How long, in seconds, a fetch or save waits for the server when the container's connection
    /// to it was lost and no new one can be made yet, because the server is restarting or failing
    /// over.
    ///
    /// Such a call tries to connect again, pausing a little longer each time, and throws
    /// ``SwiftDataError/storeUnavailable`` when the server has not taken a connection within this
    /// time. Calls that queue behind it wait with it, so a server's requests ride out a short
    /// restart instead of failing one by one. A save whose connection was lost as it committed
    /// was already sent; it throws (or learns that the server kept it) as before. Failures that
    /// waiting does not mend (refused credentials, a database that does not exist, TLS that does
    /// not match) throw at once, as does opening the container when the server cannot be reached.
    /// `5` by default; `0` throws at once. Raise it to ride out a failover, which takes longer.
    public var reconnectionTimeout: TimeInterval
    /// How long, in seconds, a save whose connection was lost as it committed waits to learn
    /// whether the server kept it.
    ///
    /// The save's `COMMIT` was sent, and the server may have committed it or not. The store asks
    /// on a new connection, again and again, until the server answers or this time has passed:
    /// the save then returns if the server kept it, and throws ``SwiftDataError/storeUnavailable``
    /// saying nothing was written if it did not. When the server could not be asked in time, the
    /// save throws ``SwiftDataError/storeUnavailable`` saying its outcome is unknown; the store
    /// remembers it, and a later save of the same new models first learns what became of it
    /// (waiting as long again), so that they are never written twice. `10` by default; `0` asks
    /// once. Lower it for requests that must answer soon, raise it with ``reconnectionTimeout``
    /// to learn the outcome across a failover.
    public var commitOutcomeTimeout: TimeInterval
    /// Whether opening the store may run a lightweight migration that deletes stored data: the
    /// rows of a model, or the values of a property or relationship, that the models no longer
    /// declare. `false` by default: such an open throws ``SwiftDataError/destructiveMigration``
    /// naming each model, property and relationship that still holds data, and changes nothing,
    /// so that a deploy never drops a column by surprise (and instances of the previous version,
    /// still running, keep their data). Remove them in a ``SchemaMigrationPlan`` stage, whose
    /// changes are always made, or set this to `true`. A migration that deletes only empty columns
    /// and tables runs either way.
    public var allowsDestructiveMigration: Bool
    /// The session of the migration plan whose stages open the store, if one does.
    var migrationSession: PostgresSession?

    /// Creates a configuration for models kept in a PostgreSQL database.
    ///
    /// - Parameters:
    ///   - name: The name of the configuration; its tables live in the PostgreSQL schema of that
    ///     name. At most 63 bytes.
    ///   - schema: The models the store holds, or `nil` for all of the container's models.
    ///   - url: The server and database, as `postgres://user:password@host:port/database`
    ///     (`postgresql://` also works; the port defaults to 5432), or through a Unix-domain
    ///     socket as `postgres://user@/database?host=/var/run/postgresql`. The query's `host`,
    ///     `port`, `user`, `password`, `dbname`, `sslmode`, `sslrootcert`, `application_name`,
    ///     `fallback_application_name`, `connect_timeout`, `options`, `keepalives`,
    ///     `keepalives_idle`, `keepalives_interval` and `keepalives_count` have libpq's meanings
    ///     (the keepalive probes start after 30 seconds of silence unless the URL says otherwise);
    ///     any other query parameter is refused with ``SwiftDataError/invalidStoreURL``.
    ///   - allowsSave: Whether contexts may save to the store.
    ///   - transportSecurity: Whether the connection uses TLS: by default, only when the server
    ///     is not on the loopback interface.
    ///   - maximumReadConnections: The most connections opened for reads that find the
    ///     container's own connection busy; `0` for none.
    ///   - allowsDestructiveMigration: Whether opening the store may run a lightweight migration
    ///     that deletes stored data (``allowsDestructiveMigration``).
    ///   - reconnectionTimeout: How long, in seconds, a call waits for a server that is restarting
    ///     (``reconnectionTimeout``).
    ///   - commitOutcomeTimeout: How long, in seconds, a save whose connection was lost as it
    ///     committed waits to learn whether the server kept it (``commitOutcomeTimeout``).
    public init(
        name: String = "default", schema: Schema? = nil, url: URL, allowsSave: Bool = true,
        transportSecurity: TransportSecurity = .automatic, maximumReadConnections: Int = 4,
        allowsDestructiveMigration: Bool = false, reconnectionTimeout: TimeInterval = 5, commitOutcomeTimeout: TimeInterval = 10
    ) {
        self.reconnectionTimeout = reconnectionTimeout
        self.commitOutcomeTimeout = commitOutcomeTimeout
        self.allowsDestructiveMigration = allowsDestructiveMigration
        self.name = name
        self.schema = schema
        self.url = url
        self.allowsSave = allowsSave
        self.transportSecurity = transportSecurity
        self.maximumReadConnections = maximumReadConnections
    }

    /// Throws ``SwiftDataError/invalidStoreURL`` when the URL or the name cannot describe a store.
    public func validate() throws {
        _ = try PostgresLocation(self)
    }

    /// Configurations are equal when they name the same store.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.name == rhs.name && lhs.url == rhs.url && lhs.allowsSave == rhs.allowsSave && lhs.transportSecurity == rhs.transportSecurity
    }

    /// Hashes the name and the URL.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(url)
    }
}

extension PostgresStoreConfiguration: StoreBackendConfiguration {
    /// Connects to the server and opens (or creates) the configuration's namespace.
    package func openBackend(schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?) throws -> any StoreBackend {
        let location = try PostgresLocation(self)
        if let migrationPlan, migrationSession == nil {
            try PostgresPlanMigration.run(migrationPlan, location: location, configuration: self, target: schema)
        }
        return try PostgresBackend(
            location: location, schema: schema, allowsSave: allowsSave,
            // A plan's stages say what they remove.
            allowsDestructiveMigration: allowsDestructiveMigration || migrationSession != nil,
            readConnections: max(0, maximumReadConnections), session: migrationSession)
    }
}
