// swift-tools-version: 6.1
import CompilerPluginSupport
import Foundation
import PackageDescription

/// Settings shared by every target: Swift 6 language mode with strict concurrency.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

/// The test targets' settings. On Linux, SwiftPM lists a test product's XCTest cases from the index
/// store; CI builds with `--disable-index-store` (about a sixth less compile time) and, through
/// `OSD_TEST_INDEX_STORE` (the build's `index/store` folder), writes the store for the test
/// targets alone. Unset, as in every other build, this adds nothing.
let testSwiftSettings: [SwiftSetting] = swiftSettings
    + (ProcessInfo.processInfo.environment["OSD_TEST_INDEX_STORE"].map { [.unsafeFlags(["-index-store-path", $0])] } ?? [])

let package = Package(
    name: "OpenSwiftData",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "OpenSwiftData", targets: ["OpenSwiftData"]),
        .library(name: "OpenSwiftDataPostgres", targets: ["OpenSwiftDataPostgres"]),
        .library(name: "OpenSwiftDataToolbox", targets: ["OpenSwiftDataToolbox"]),
        .library(name: "OpenSwiftDataSync", targets: ["OpenSwiftDataSync"]),
        .library(name: "OpenSwiftDataSyncServer", targets: ["OpenSwiftDataSyncServer"]),
        .executable(name: "osd", targets: ["osd"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax", "602.0.0"..<"604.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // The sync server stops its HTTP server gracefully (Hummingbird's services run in a group).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The sync server's HTTP routes. Without the default trait ConfigurationSupport, which would
        // build swift-configuration, unused here (an app that enables it gets it as usual).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: ["FullFoundation"]),
        // A container's events and metrics (ModelContainer.Observability), as server Swift reports them.
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.4.0"),
        // The toolbox's encrypted secrets file and stable cache-file names (postgres-nio uses it too).
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        // `swift package generate-documentation` (Scripts/check-docs.sh); a plugin, built only when run.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // The macros and the compiler plugin that serves them. Nothing else links swift-syntax: the
        // macro tests run the plugin with `--expand` (ExpansionPrinter.swift), so that swift-syntax
        // is built once, for the host, not a second time for the target.
        .macro(
            name: "OpenSwiftDataMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
                .product(name: "SwiftParserDiagnostics", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "OpenSwiftData",
            dependencies: [
                "CSQLite", "OpenSwiftDataMacros",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        // The PostgreSQL store: a product of its own, so that apps on the embedded store never build
        // or link SwiftNIO.
        .target(
            name: "OpenSwiftDataPostgres",
            dependencies: ["OpenSwiftData", .product(name: "PostgresNIO", package: "postgres-nio")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PostgresStoreTests",
            dependencies: ["OpenSwiftDataPostgres", "OpenSwiftData", "PredicateFuzzing", .product(name: "PostgresNIO", package: "postgres-nio")],
            swiftSettings: testSwiftSettings
        ),
        // The sync engine: Foundation only (URLSession), so that an app on the embedded store builds
        // no SwiftNIO.
        .target(
            name: "OpenSwiftDataSync",
            dependencies: ["OpenSwiftData"],
            swiftSettings: swiftSettings
        ),
        // The sync server, as a library of Hummingbird routes over PostgreSQL.
        .target(
            name: "OpenSwiftDataSyncServer",
            dependencies: [
                "OpenSwiftData", "OpenSwiftDataSync",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The sync convergence checker (Jepsen-style): a library and the processes it runs.
        .target(
            name: "SyncChecking",
            dependencies: [
                "OpenSwiftData", "OpenSwiftDataSync", "OpenSwiftDataSyncServer", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tools/SyncChecking",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "SyncCheck",
            dependencies: ["SyncChecking", "OpenSwiftData", "OpenSwiftDataSync", "OpenSwiftDataSyncServer", .product(name: "Logging", package: "swift-log")],
            path: "Tools/SyncCheck",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SyncTests",
            dependencies: [
                "OpenSwiftDataSync", "OpenSwiftDataSyncServer", "OpenSwiftData", "osd", "SyncCheck", "SyncChecking", "SyncNotes",
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: testSwiftSettings
        ),
        // Preferences, secrets, files and caches: a product of its own, so that an app that uses only
        // the model store builds none of it.
        .target(
            name: "OpenSwiftDataToolbox",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ToolboxKill",
            dependencies: ["OpenSwiftDataToolbox"],
            path: "Tools/ToolboxKill",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ToolboxTests",
            dependencies: ["OpenSwiftDataToolbox", "ToolboxKill", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: testSwiftSettings
        ),
        .target(
            name: "OSDKit",
            dependencies: ["OpenSwiftData", "OpenSwiftDataPostgres", "OpenSwiftDataSync", "OpenSwiftDataSyncServer", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "osd",
            dependencies: ["OSDKit", "OpenSwiftData", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "OSDToolTests",
            dependencies: ["osd", "OSDKit", "OpenSwiftData", "OpenSwiftDataPostgres", "OpenSwiftDataSync"],
            exclude: ["Golden"],
            swiftSettings: testSwiftSettings
        ),
        .executableTarget(
            name: "Demo",
            dependencies: ["OpenSwiftData"],
            path: "Examples/Demo",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "SyncNotes",
            dependencies: ["OpenSwiftData", "OpenSwiftDataSync"],
            path: "Examples/SyncNotes",
            exclude: ["schema.json", "tokens"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "LiveList",
            dependencies: ["OpenSwiftData"],
            path: "Examples/LiveList",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "JSONStore",
            dependencies: ["OpenSwiftData"],
            path: "Examples/JSONStore",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "JSONStoreTests",
            dependencies: ["JSONStore", "OpenSwiftData"],
            swiftSettings: testSwiftSettings
        ),
        .target(
            name: "PredicateFuzzing",
            dependencies: ["OpenSwiftData"],
            path: "Tools/PredicateFuzzing",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "PredicateFuzz",
            dependencies: ["PredicateFuzzing", "OpenSwiftData", "OpenSwiftDataPostgres"],
            path: "Tools/PredicateFuzz",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "LedgerKill",
            dependencies: ["OpenSwiftData", "OpenSwiftDataPostgres", "PredicateFuzzing", "MigrationScenarios"],
            path: "Tools/LedgerKill",
            swiftSettings: swiftSettings
        ),
        // A SQLite VFS that fails chosen I/O calls, for FaultProbe's I/O-error checks.
        .target(
            name: "CFaultVFS",
            dependencies: ["CSQLite"],
            path: "Tools/FaultVFS"
        ),
        .executableTarget(
            name: "FaultProbe",
            dependencies: ["OpenSwiftData", "MigrationScenarios", "CFaultVFS"],
            path: "Tools/FaultProbe",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "MemoryProbe",
            dependencies: ["OpenSwiftData", "PredicateFuzzing", "CSQLite"],
            path: "Tools/MemoryProbe",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "HistoryWriter",
            dependencies: ["PredicateFuzzing", "OpenSwiftData", "OpenSwiftDataPostgres"],
            path: "Tools/HistoryWriter",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "MigrationScenarios",
            dependencies: ["OpenSwiftData", "OpenSwiftDataPostgres", "CSQLite", "PredicateFuzzing"],
            path: "Tools/MigrationScenarios",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "MigrationKill",
            dependencies: ["MigrationScenarios", "OpenSwiftData"],
            path: "Tools/MigrationKill",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "OpenSwiftDataTests",
            dependencies: [
                "OpenSwiftData", "OpenSwiftDataPostgres", "PredicateFuzzing", "HistoryWriter", "MemoryProbe", "LedgerKill", "FaultProbe",
                "MigrationScenarios", "MigrationKill", "Demo",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "OpenSwiftDataMacrosTests",
            // OpenSwiftData, for its macro plugin, which the tests run.
            dependencies: ["OpenSwiftData"],
            swiftSettings: testSwiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)

#if !canImport(Darwin)
// Where Apple's SwiftData does not exist, a `SwiftData` product re-exports OpenSwiftData, so that
// unchanged SwiftData code (`import SwiftData`, `SwiftData.ModelContainer`) builds. On Apple
// platforms the name stays Apple's.
package.products.append(.library(name: "SwiftData", targets: ["SwiftData"]))
package.targets += [
    .target(name: "SwiftData", dependencies: ["OpenSwiftData"], swiftSettings: swiftSettings),
    .testTarget(name: "SwiftDataModuleTests", dependencies: ["SwiftData"], swiftSettings: testSwiftSettings),
]
#endif
