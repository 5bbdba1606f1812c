import Foundation
import Logging
import OpenSwiftData
import OpenSwiftDataSync
import PostgresNIO

/// A Jepsen-style check of sync: clients making random changes on shared data are killed and
/// restarted at random moments, the server (or, with several server processes behind the one
/// database, one of them) is killed and restarted mid-run; at the end every client synchronizes,
/// and the check asserts that
/// 1. every client's store holds the same models with the same values (and so does a new client
///    that downloads everything);
/// 2. each value is the one the per-property rule picks from the server's change log (the latest
///    clock), a deleted model stays deleted, and every model there was inserted by a client;
/// 3. no acknowledged write is lost: each client's last committed value of each property it wrote,
///    on a model that still exists, reached the server's change log.
///
/// With shares, the clients belong to three users in turn: the first shares its groups (and their
/// items) with the second, read-write, and with the third, read-only, and stops sharing them, now
/// and then. The checks then hold per user: every client of a user (and a new one) holds the same
/// models, exactly those the server has the user own or shares with them, with the values the
/// rule picks (a relationship to a model the user does not see holds nothing); a write is lost
/// when it was to a model its user owns at the end, and the server refused no change of that model
/// to the client (a refused change is refused whole).
public struct CheckRun {
    /// The token every check client uses without shares: they share one user's data.
    public static let token = "check-token"
    /// The users of a run with shares: the owner, a read-write and a read-only participant.
    public static let sharingUsers = ["ann", "ben", "cat"]
    /// Every token the check server accepts, with its user.
    public static let tokens = [token: "checker"].merging(sharingUsers.map { ("check-token-\($0)", $0) }) { first, _ in first }

    public var postgresURL: String
    /// The `SyncCheck` executable, which runs the server and the clients as processes.
    public var executable: URL
    public var clients: Int
    public var operations: Int
    public var seed: UInt64
    /// Whether clients and the server are killed with SIGKILL and restarted during the run.
    public var kills: Bool
    /// Whether the server trims its tombstones and change log once during the run, at a random
    /// moment, so that clients behind the trim download everything again.
    public var trims: Bool
    /// How many server processes serve the database; each client moves between them (see
    /// ``CheckClient``), and changes reach the others' waiting clients through the database's
    /// notifications.
    public var servers: Int
    /// Whether the clients belong to three users who share groups (see above).
    public var shares: Bool
    /// Whether a client or server process is paused (SIGSTOP) now and then for up to 12 seconds,
    /// as a machine that stalls or a virtual machine that is suspended: a paused server holds its
    /// connections, transactions and locks, and the clients' requests (10 s timeouts) may end
    /// before their answers; a paused client holds its store's locks.
    public var pauses: Bool

    public init(
        postgresURL: String, executable: URL, clients: Int, operations: Int, seed: UInt64, kills: Bool, trims: Bool = false, servers: Int = 1,
        shares: Bool = false, pauses: Bool = false
    ) {
        self.postgresURL = postgresURL
        self.executable = executable
        self.clients = clients
        self.operations = operations
        self.seed = seed
        self.kills = kills
        self.trims = trims
        self.servers = max(servers, 1)
        self.shares = shares
        self.pauses = pauses
    }

    /// The user of a client.
    private func user(of client: Int) -> String {
        shares ? Self.sharingUsers[client % Self.sharingUsers.count] : "checker"
    }

    /// The token of a user.
    private static func token(of user: String) -> String {
        user == "checker" ? token : "check-token-\(user)"
    }

    /// What one run found.
    public struct Outcome: Sendable {
        public var violations: [String]
        public var rows: Int
        public var writes: Int
        public var clientKills: Int
        public var serverRestarts: Int
        public var trims: Int
        /// How many times a process was paused.
        public var pauses: Int
        /// With shares: the models shares carried to their participants at the end, counted per
        /// participant.
        public var sharedRows: Int
        /// Where the stores and clients' logs of a run that found a violation are kept, with the
        /// namespace of its server's tables.
        public var kept: (directory: URL, namespace: String)?
    }

    public func run() async throws -> Outcome {
        let directory = FileManager.default.temporaryDirectory.appending(path: "osd-sync-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // A run that finds a violation keeps its stores and clients' logs, and says where.
        var keep = false
        defer { if !keep { try? FileManager.default.removeItem(at: directory) } }
        let name = "check_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(10).lowercased()
        var random = SplitMix(seed: seed)

        var serverProcesses = try (0..<servers).map { _ in try startServer(name: name, port: 0) }
        let serverURLs = serverProcesses.map(\.url)
        var clientKills = 0
        var serverRestarts = 0
        var pauseCount = 0
        let stores = (0..<clients).map { directory.appending(path: "client-\($0).store") }
        let logs = (0..<clients).map { directory.appending(path: "client-\($0).log") }
        var running: [Int: Process] = [:]
        var remaining = Array(repeating: 2, count: clients)   // starts each client may still make
        for index in 0..<clients {
            running[index] = try startClient(index, serverURLs: serverURLs, store: stores[index], log: logs[index], seed: random.next())
            remaining[index] -= 1
        }
        var serverRestarted = !kills
        var trimmed = false
        // The trim comes after ten to twenty-four rounds of the loop (about two to five seconds),
        // while the clients work.
        let trimRound = trims ? 10 + Int(random.next(15)) : -1
        var round = 0
        while !running.isEmpty {
            round += 1
            try await Task.sleep(for: .milliseconds(Int(50 + random.next(150))))
            for (index, process) in running where !process.isRunning {
                running[index] = nil
            }
            if round == trimRound {
                try trim(name)
                trimmed = true
            }
            guard kills else { continue }
            if let (index, process) = running.randomElement(using: &random), random.next(4) == 0, remaining[index] > 0 {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                clientKills += 1
                running[index] = try startClient(index, serverURLs: serverURLs, store: stores[index], log: logs[index], seed: random.next())
                remaining[index] -= 1
            }
            if !serverRestarted && random.next(6) == 0 {
                let victim = servers == 1 ? 0 : Int(random.next(UInt64(servers)))
                let server = serverProcesses[victim]
                kill(server.process.processIdentifier, SIGKILL)
                server.process.waitUntilExit()
                serverProcesses[victim] = try startServer(name: name, port: server.port)
                serverRestarted = true
                serverRestarts += 1
            }
            if pauses, pauseCount < 2, random.next(10) == 0 {
                // One of the running processes, servers included, stops for 1 to 12 seconds; the
                // others go on meanwhile.
                let candidates = running.sorted { $0.key < $1.key }.map(\.value) + serverProcesses.map(\.process)
                let victim = candidates[Int(random.next(UInt64(candidates.count)))]
                kill(victim.processIdentifier, SIGSTOP)
                try await Task.sleep(for: .milliseconds(1_000 + Int(random.next(11_000))))
                kill(victim.processIdentifier, SIGCONT)
                pauseCount += 1
            }
        }
        // A run whose clients finished before the trim's round is trimmed now, before they all catch up.
        if trims, !trimmed {
            try trim(name)
            trimmed = true
        }
        // Everyone synchronizes, twice round, so that each has what the others sent.
        for _ in 0..<2 {
            for index in 0..<clients {
                try runTool(["drain", "--server", Self.list(serverURLs), "--store", stores[index].path, "--token", Self.token(of: user(of: index))])
            }
        }
        // A new client of each user downloads everything.
        let users = Array(Set((0..<clients).map(user(of:)))).sorted()
        var clientsOf = Dictionary(grouping: 0..<clients, by: user(of:)).mapValues { $0.map { $0 } }
        var storesOf = stores
        for (number, user) in users.enumerated() {
            let fresh = directory.appending(path: "fresh-\(number).store")
            try runTool(["drain", "--server", Self.list(serverURLs), "--store", fresh.path, "--token", Self.token(of: user)])
            clientsOf[user, default: []].append(storesOf.count)
            storesOf.append(fresh)
        }
        var states: [CheckState] = []
        for store in storesOf {
            let output = try runTool(["dump", "--store", store.path])
            states.append(try JSONDecoder().decode(CheckState.self, from: Data(output.utf8)))
        }
        for server in serverProcesses {
            server.process.terminate()
            server.process.waitUntilExit()
        }

        var violations: [String] = []
        let log = try await ChangeLog.read(postgresURL: postgresURL, namespace: "\(name)_sync")
        let scope = shares ? try await ServerScope.read(postgresURL: postgresURL, namespace: "\(name)_sync") : nil
        var rows = 0
        var writes = 0
        for user in users {
            let members = clientsOf[user] ?? []
            guard let first = members.first else { continue }
            let named = shares ? " of \(user)" : ""
            for index in members.dropFirst() where states[index] != states[first] {
                let label = index >= clients ? "a new client\(named)" : "client \(index)"
                let (key, text) = Self.difference(states[first], states[index])
                violations.append("\(label) differs from client \(first): \(text); the server's log of it: \(log.describe(key: key))")
            }
            let final = states[first]
            rows += final.rows.count
            violations += log.violations(in: final, visible: scope?.visible(to: user)).map { shares ? "\(user): \($0)" : $0 }
            for index in members where index < clients {
                let written = try WriteLog.read(logs[index])
                writes += written.count
                let refused = (try? String(contentsOf: URL(fileURLWithPath: logs[index].path + ".refused"), encoding: .utf8))
                    .map { Set($0.split(separator: "\n").map(String.init)) } ?? []
                violations += log.lostWrites(written, client: index, in: final, owned: scope?.owned(by: user), refused: refused)
            }
        }
        keep = !violations.isEmpty
        let sharedRows = scope.map { scope in scope.shared.values.map { $0.intersection(scope.live).count }.reduce(0, +) } ?? 0
        return Outcome(violations: violations, rows: rows, writes: writes, clientKills: clientKills, serverRestarts: serverRestarts,
                       trims: trimmed ? 1 : 0, pauses: pauseCount, sharedRows: sharedRows, kept: keep ? (directory, "\(name)_sync") : nil)
    }

    /// Trims the server's tombstones older than a second, keeping its change log whole: the
    /// check's rule needs every value ever pushed. (A log read before a trim by time, with the
    /// trim cutting at the read's start, lost entries when the trim process stalled for over a
    /// second between measuring its age and starting its transaction.) The cut is that moment
    /// itself, not an age: the trim process may start seconds later on a busy machine.
    private func trim(_ name: String) throws {
        let cut = Date().addingTimeInterval(-1)
        try runTool(["trim", "--postgres", postgresURL, "--name", name, "--before-ms", "\(Int64(cut.timeIntervalSince1970 * 1000))"])
    }

    // MARK: Processes

    private struct ServerProcess {
        var process: Process
        var port: Int
        var url: URL
    }

    private func startServer(name: String, port: Int) throws -> ServerProcess {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["serve", "--postgres", postgresURL, "--name", name, "--port", "\(port)"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // The first line says the port once the server accepts connections.
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data([0x0A]) { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("listening on "), let listening = Int(text.dropFirst("listening on ".count)),
              let url = URL(string: "http://127.0.0.1:\(listening)")
        else {
            process.terminate()
            throw SyncError(.unreachable, "The check server did not start: \(text)")
        }
        return ServerProcess(process: process, port: listening, url: url)
    }

    /// Server URLs as the `client` and `drain` commands take them: separated by commas.
    static func list(_ urls: [URL]) -> String {
        urls.map(\.absoluteString).joined(separator: ",")
    }

    private func startClient(_ index: Int, serverURLs: [URL], store: URL, log: URL, seed: UInt64) throws -> Process {
        let process = Process()
        process.executableURL = executable
        let user = user(of: index)
        process.arguments = [
            "client", "--server", Self.list(serverURLs), "--store", store.path, "--log", log.path, "--seed", "\(seed)",
            "--operations", "\(operations)", "--token", Self.token(of: user),
        ] + (index % 2 == 1 ? ["--continuous"] : [])
            + (shares && user == Self.sharingUsers[0] ? ["--shares-with", "\(Self.sharingUsers[1]):readWrite,\(Self.sharingUsers[2]):readOnly"] : [])
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }

    @discardableResult
    private func runTool(_ arguments: [String]) throws -> String {
        let run = try ProgramRun(executable, arguments)
        guard run.status == 0 else {
            throw SyncError(.storeFailure, "SyncCheck \(arguments.first ?? "") failed with status \(run.status)")
        }
        return String(decoding: run.output, as: UTF8.self)
    }

    private static func difference(_ a: CheckState, _ b: CheckState) -> (key: String, text: String) {
        let keys = Set(a.rows.keys).union(b.rows.keys).sorted()
        for key in keys where a.rows[key] != b.rows[key] {
            return (key, "\(key): \(a.rows[key].map { "\($0)" } ?? "absent") vs \(b.rows[key].map { "\($0)" } ?? "absent")")
        }
        return ("", "nothing")
    }
}

extension Dictionary {
    fileprivate func randomElement(using random: inout SplitMix) -> Element? {
        guard !isEmpty else { return nil }
        let sorted = self.sorted { "\($0.key)" < "\($1.key)" }
        return sorted[Int(random.next(UInt64(sorted.count)))]
    }
}
