// swift-tools-version: 6.0
// The benchmark: OpenSwiftData, hand-written SQLite C calls and GRDB on the same workloads; on
// PostgreSQL, OpenSwiftData, hand-written postgres-nio and Fluent; the same four as servers under
// load; the toolbox's caches against a dictionary and plain files.
// A separate package so that GRDB never enters the graph of OpenSwiftData's users.
import PackageDescription

let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "OpenSwiftData", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/vapor/fluent-kit", exact: "1.57.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver", exact: "2.14.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        .systemLibrary(name: "CSQLiteBench", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(
            name: "OSDBenchmarks",
            dependencies: [
                "CSQLiteBench",
                .product(name: "OpenSwiftData", package: "OpenSwiftData"),
                .product(name: "OpenSwiftDataPostgres", package: "OpenSwiftData"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "FluentKit", package: "fluent-kit"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
            ]
        ),
        // The sync benchmarks' command-line options and output.
        .target(name: "SyncBenchmarkSupport"),
        // Sync on loopback: pushes, initial sync against postgres-nio + raw SQLite, propagation.
        .executableTarget(
            name: "SyncBenchmarks",
            dependencies: [
                "CSQLiteBench", "SyncBenchmarkSupport",
                .product(name: "OpenSwiftData", package: "OpenSwiftData"),
                .product(name: "OpenSwiftDataSync", package: "OpenSwiftData"),
                .product(name: "OpenSwiftDataSyncServer", package: "OpenSwiftData"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // Fan-out from one sync server process to many waiting clients (Scripts/fanout.sh).
        .executableTarget(
            name: "SyncFanOut",
            dependencies: [
                "SyncBenchmarkSupport",
                .product(name: "OpenSwiftData", package: "OpenSwiftData"),
                .product(name: "OpenSwiftDataSync", package: "OpenSwiftData"),
                .product(name: "OpenSwiftDataSyncServer", package: "OpenSwiftData"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // The load harness's servers: the same routes over OpenSwiftData (PostgreSQL, SQLite),
        // Fluent and hand-written postgres-nio, one Hummingbird app each (Scripts/servers.sh).
        .executableTarget(
            name: "TripServers",
            dependencies: [
                .product(name: "OpenSwiftData", package: "OpenSwiftData"),
                .product(name: "OpenSwiftDataPostgres", package: "OpenSwiftData"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "FluentKit", package: "fluent-kit"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        // The toolbox's caches against a plain dictionary and plain files.
        .executableTarget(
            name: "ToolboxBenchmarks",
            dependencies: [.product(name: "OpenSwiftDataToolbox", package: "OpenSwiftData")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
