// swift-tools-version: 6.0
// The benchmark: OpenSwiftData, hand-written SQLite C calls and GRDB on the same workloads.
// A separate package so that GRDB never enters the graph of OpenSwiftData's users.
import PackageDescription

let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "OpenSwiftData", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .systemLibrary(name: "CSQLiteBench", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(
            name: "OSDBenchmarks",
            dependencies: [
                "CSQLiteBench",
                .product(name: "OpenSwiftData", package: "OpenSwiftData"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
