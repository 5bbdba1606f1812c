import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres

/// The store a kill run works on: a file, or a PostgreSQL configuration's namespace on a server.
public enum KillStore: Sendable {
    case file(URL)
    /// The configuration `name` on the server `server` names.
    case postgres(name: String, server: URL)

    /// A fresh namespace on `server`, named after `prefix`.
    public static func freshPostgres(on server: URL, prefix: String) -> KillStore {
        .postgres(name: prefix + "_" + String(UInt64.random(in: 1...UInt64.max), radix: 36), server: server)
    }

    /// The store a worker's argument names: `postgres:NAME` (on the server OSD_POSTGRES_URL names)
    /// or a file's path.
    public init(argument: String) throws {
        guard argument.hasPrefix("postgres:") else {
            self = .file(URL(fileURLWithPath: argument))
            return
        }
        guard let server = ProcessInfo.processInfo.environment["OSD_POSTGRES_URL"].flatMap(URL.init(string:)) else {
            throw SwiftDataError(.invalidStoreURL, reason: "set OSD_POSTGRES_URL (Scripts/with-postgres.sh) to work on \(argument)")
        }
        self = .postgres(name: String(argument.dropFirst("postgres:".count)), server: server)
    }

    /// What a worker is given to find this store (``init(argument:)``).
    public var argument: String {
        switch self {
        case .file(let url): url.path
        case .postgres(let name, _): "postgres:" + name
        }
    }

    /// The configuration that opens the store.
    public var configuration: any DataStoreConfiguration {
        switch self {
        case .file(let url): ModelConfiguration(url: url)
        case .postgres(let name, let server): PostgresStoreConfiguration(name: name, url: server)
        }
    }

    /// Whether a file store's migration left its marker or backup beside it (PostgreSQL migrates
    /// in one transaction and leaves nothing).
    var migrationInProgress: Bool {
        guard case .file(let url) = self else { return false }
        return FileManager.default.fileExists(atPath: url.path + ".osd-migration")
            || FileManager.default.fileExists(atPath: url.path + ".osd-migration-backup")
    }

    /// What is wrong with the store as a file (``KillScenario/checkFile(at:)``); nothing to check
    /// on PostgreSQL beyond what the scenario reads.
    var fileProblems: [String] {
        guard case .file(let url) = self else { return [] }
        return KillScenario.checkFile(at: url)
    }
}
