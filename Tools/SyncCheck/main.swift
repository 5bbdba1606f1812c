import Foundation
import Logging
import OpenSwiftData
import OpenSwiftDataSync
import OpenSwiftDataSyncServer
import SyncChecking

// The sync convergence checker and the processes it runs:
//
//   SyncCheck run --postgres URL [--runs R] [--clients K] [--operations N] [--seed S] [--no-kills]
//                 [--trims] [--servers P] [--shares] [--pauses]
//   SyncCheck serve --postgres URL --name NAME --port P
//   SyncCheck client --server URL[,URL…] --store PATH --log PATH --seed S --operations N [--continuous]
//                    [--token T] [--shares-with USER:PERMISSION[,…]]
//
// A run's clients of odd index synchronize continuously (SyncEngine.start()), the others now and then.
// With --servers P, P server processes serve the run's database; each client moves between them.
// With --shares, the clients belong to three users in turn, and the first shares groups with the others.
// With --pauses, a client or server process is stopped (SIGSTOP) for 1 to 12 seconds, up to twice a run.
//   SyncCheck drain --server URL[,URL…] --store PATH [--token T]
//   SyncCheck dump --store PATH

func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: "--" + name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

func required(_ name: String) -> String {
    guard let value = option(name) else {
        FileHandle.standardError.write(Data("SyncCheck: --\(name) is required\n".utf8))
        exit(2)
    }
    return value
}

/// The URLs of a comma-separated list.
func urls(_ text: String) -> [URL] {
    text.split(separator: ",").map { url(String($0)) }
}

func url(_ text: String) -> URL {
    guard let url = URL(string: text) else {
        FileHandle.standardError.write(Data("SyncCheck: \(text) is not a URL\n".utf8))
        exit(2)
    }
    return url
}

do {
    switch CommandLine.arguments.dropFirst().first {
    case "serve":
        var logger = Logger(label: "sync-check-server")
        logger.logLevel = .critical
        let server = try SyncServer(
            postgresURL: required("postgres"), name: required("name"), schema: Schema(checkModels),
            authenticator: TokenFileAuthenticator(users: CheckRun.tokens), recordsChangeLog: true, logger: logger)
        try await server.run(port: Int(required("port")) ?? 0) { port in
            FileHandle.standardOutput.write(Data("listening on \(port)\n".utf8))
        }
    case "trim":
        var logger = Logger(label: "sync-check-trim")
        logger.logLevel = .critical
        let server = try SyncServer(
            postgresURL: required("postgres"), name: required("name"), schema: Schema(checkModels),
            authenticator: TokenFileAuthenticator(users: [:]), logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await server.postgresClient.run() }
            // The connection is opened first, so that the age, measured just before the trim's
            // own transaction begins, puts its cut where the checker's is.
            _ = try await server.postgresClient.query("SELECT 1", logger: logger)
            let cut = Date(timeIntervalSince1970: Double(Int64(required("before-ms")) ?? 0) / 1000)
            // The change log stays whole: the checker reads every value ever pushed from it at the end.
            try await server.trimHistory(olderThan: .milliseconds(max(Int64(Date().timeIntervalSince(cut) * 1000), 0)), keepingChangeLog: true)
            group.cancelAll()
        }
    case "client":
        try await CheckClient(
            serverURLs: urls(required("server")), storeURL: URL(fileURLWithPath: required("store")), logURL: URL(fileURLWithPath: required("log")),
            seed: UInt64(required("seed")) ?? 1, operations: Int(required("operations")) ?? 10,
            synchronizesContinuously: CommandLine.arguments.contains("--continuous"), token: option("token") ?? CheckRun.token,
            sharesWith: (option("shares-with") ?? "").split(separator: ",").compactMap { pair in
                let parts = pair.split(separator: ":")
                guard parts.count == 2, let permission = SyncSharePermission(rawValue: String(parts[1])) else { return nil }
                return (String(parts[0]), permission)
            }
        ).run()
    case "drain":
        try await CheckClient(
            serverURLs: urls(required("server")), storeURL: URL(fileURLWithPath: required("store")), logURL: URL(fileURLWithPath: "/dev/null"), seed: 0,
            operations: 0, token: option("token") ?? CheckRun.token
        ).drain()
    case "dump":
        let state = try CheckClient(serverURLs: [], storeURL: URL(fileURLWithPath: required("store")), logURL: URL(fileURLWithPath: "/dev/null"), seed: 0, operations: 0).dump()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        FileHandle.standardOutput.write(try encoder.encode(state))
    case "run":
        let runs = Int(option("runs") ?? "10") ?? 10
        let clients = Int(option("clients") ?? "5") ?? 5
        let operations = Int(option("operations") ?? "60") ?? 60
        let servers = Int(option("servers") ?? "1") ?? 1
        let seed = UInt64(option("seed") ?? "\(UInt64.random(in: 1...UInt64.max))") ?? 1
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let sharing = CommandLine.arguments.contains("--shares")
        let pausing = CommandLine.arguments.contains("--pauses")
        var violations = 0
        var rows = 0
        var writes = 0
        var kills = 0
        var restarts = 0
        var trims = 0
        var paused = 0
        var shared = 0
        print("seed \(seed): \(runs) runs × \(clients) clients × \(operations) operations, \(servers) server process\(servers == 1 ? "" : "es")" + (sharing ? ", three users sharing" : "") + (pausing ? ", processes paused" : ""))
        for run in 0..<runs {
            let outcome = try await CheckRun(
                postgresURL: required("postgres"), executable: executable, clients: clients, operations: operations,
                seed: seed &+ UInt64(run), kills: !CommandLine.arguments.contains("--no-kills"), trims: CommandLine.arguments.contains("--trims"), servers: servers,
                shares: sharing, pauses: pausing
            ).run()
            violations += outcome.violations.count
            rows += outcome.rows
            writes += outcome.writes
            kills += outcome.clientKills
            restarts += outcome.serverRestarts
            trims += outcome.trims
            paused += outcome.pauses
            shared += outcome.sharedRows
            for violation in outcome.violations { print("run \(run): \(violation)") }
            if let (directory, namespace) = outcome.kept {
                print("run \(run): its stores and clients' logs are kept in \(directory.path), its server's tables in the namespace \(namespace)")
            }
            // A line per run, written at once: a long run stopped part of the way still tells
            // what it checked.
            print("run \(run) of \(runs): \(outcome.writes) writes, \(outcome.clientKills) clients killed, \(outcome.serverRestarts) server restarts, \(outcome.trims) trims, " + (pausing ? "\(outcome.pauses) pauses, " : "") + (sharing ? "\(outcome.sharedRows) shared models, " : "") + "\(outcome.violations.count) violations; \(violations) in \(run + 1) runs")
            fflush(nil)
        }
        print("runs: \(runs) × clients: \(clients), writes: \(writes), models at the end: \(rows), clients killed: \(kills), server restarts: \(restarts), trims: \(trims)" + (pausing ? ", pauses: \(paused)" : "") + (sharing ? ", shared models at the end: \(shared)" : ""))
        print("violations: \(violations)")
        exit(violations == 0 ? 0 : 1)
    default:
        FileHandle.standardError.write(Data("usage: SyncCheck run|serve|client|drain|dump|trim …\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("SyncCheck: \(error)\n".utf8))
    exit(1)
}
