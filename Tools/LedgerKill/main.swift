import Foundation
import MigrationScenarios
import OpenSwiftData
import OpenSwiftDataPostgres
import PredicateFuzzing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A writer killed with SIGKILL at random moments, over and over, on one store: a ledger of
// transfers between accounts, each save moving money and recording the transfers in the same
// transaction. After each kill the money must add up, no committed entry may be lost, the new
// entries' sequence numbers must follow on without a gap, and replaying them must give the
// balances stored; the file must pass SQLite's integrity check (after each of the first 50 kills,
// then every tenth and the last) and have no migration file beside it. With `--postgres`, the
// ledger is a PostgreSQL store on the server OSD_POSTGRES_URL names (a fresh namespace), and the
// server, not the file, is what must hold only whole saves.
//
//   LedgerKill [--kills N] [--seed S] [--postgres]   kills (default 1,000), prints the report, exits 1 on a violation
//   LedgerKill worker STORE SEED        the writer: opens (or creates) the ledger, then saves until killed
//                                       (STORE: a file's path, or `postgres:NAME`)

/// The accounts (`FuzzOwner`: name, balance in `rank`) and the ledger (`FuzzItem`: sequence number
/// in `score`, "from>to:amount" in `title`).
let schema = Schema([FuzzRow.self, FuzzOwner.self, FuzzItem.self])
let accounts = 10
let openingBalance = 1_000

/// The ledger's container: a store file, or `postgres:NAME` for the PostgreSQL configuration NAME.
func container(_ store: String) throws -> ModelContainer {
    guard store.hasPrefix("postgres:") else {
        return try ModelContainer(for: schema, configurations: ModelConfiguration(url: URL(fileURLWithPath: store)))
    }
    guard let server = ProcessInfo.processInfo.environment["OSD_POSTGRES_URL"].flatMap(URL.init(string:)) else {
        throw SwiftDataError(.invalidStoreURL, reason: "set OSD_POSTGRES_URL (Scripts/with-postgres.sh) to run LedgerKill --postgres")
    }
    return try ModelContainer(for: schema, configurations: [PostgresStoreConfiguration(name: String(store.dropFirst("postgres:".count)), url: server)])
}

/// Saves transfers until killed: one to five per save, in one transaction with their ledger entries.
func work(store: String, seed: UInt64) throws -> Never {
    let context = ModelContext(try container(store))
    var owners = try context.fetch(FetchDescriptor<FuzzOwner>(sortBy: [SortDescriptor(\.name)]))
    if owners.isEmpty {
        owners = (0..<accounts).map { FuzzOwner(name: "account \($0)", rank: openingBalance) }
        for owner in owners { context.insert(owner) }
        try context.save()
    }
    var random = SplitMix64(seed: seed)
    var next = (try context.fetch(FetchDescriptor<FuzzItem>(sortBy: [SortDescriptor(\.score, order: .reverse)])).first?.score ?? 0) + 1
    print("started")
    fflush(nil)
    while true {
        for _ in 0..<Int.random(in: 1...5, using: &random) {
            let from = Int.random(in: 0..<owners.count, using: &random)
            let to = (from + Int.random(in: 1..<owners.count, using: &random)) % owners.count
            let amount = Int.random(in: 1...50, using: &random)
            owners[from].rank -= amount
            owners[to].rank += amount
            context.insert(FuzzItem(title: "\(from)>\(to):\(amount)", score: next))
            next += 1
        }
        try context.save()
    }
}

/// What the checks have established so far: the ledger entries verified (committed entries never
/// change, so each check reads only the new ones) and the balances they replay to.
struct Verified {
    var entries = 0
    var balances = Array(repeating: openingBalance, count: accounts)
}

/// What is wrong with the ledger at `store`, one line each; `verified` moves past the new entries.
/// `integrity` runs SQLite's integrity check too (it reads the whole file; a file only).
func verify(store: String, _ verified: inout Verified, integrity: Bool) -> [String] {
    do {
        let context = ModelContext(try container(store))
        let owners = try context.fetch(FetchDescriptor<FuzzOwner>(sortBy: [SortDescriptor(\.name)]))
        let known = verified.entries
        let total = try context.fetchCount(FetchDescriptor<FuzzItem>())
        let new = try context.fetch(FetchDescriptor<FuzzItem>(predicate: #Predicate { $0.score > known }, sortBy: [SortDescriptor(\.score)]))
        var problems: [String] = []
        if owners.isEmpty {
            return total == 0 ? [] : ["\(total) ledger entries without accounts"]
        }
        if owners.count != accounts { problems.append("\(owners.count) accounts") }
        let sum = owners.reduce(0) { $0 + $1.rank }
        if sum != accounts * openingBalance { problems.append("the balances add up to \(sum)") }
        if total != known + new.count { problems.append("\(total) ledger entries: \(known) verified before and \(new.count) new") }
        if new.map(\.score) != Array((known + 1)..<(known + 1 + new.count)) {
            problems.append("the ledger's new sequence numbers have gaps or repeats")
        }
        var replayed = verified.balances
        for entry in new {
            let parts = entry.title.split(whereSeparator: { $0 == ">" || $0 == ":" }).compactMap { Int($0) }
            guard parts.count == 3, replayed.indices.contains(parts[0]), replayed.indices.contains(parts[1]) else {
                problems.append("ledger entry \(entry.score) reads \(entry.title)")
                continue
            }
            replayed[parts[0]] -= parts[2]
            replayed[parts[1]] += parts[2]
        }
        if owners.count == accounts, replayed != owners.map(\.rank) {
            problems.append("replaying the ledger gives \(replayed), the accounts hold \(owners.map(\.rank))")
        }
        if problems.isEmpty {
            verified.entries = known + new.count
            verified.balances = replayed
        }
        let file = store.hasPrefix("postgres:") ? nil : URL(fileURLWithPath: store)
        return problems + (integrity ? file.map(KillScenario.checkFile) ?? [] : [])
    } catch {
        return ["opening the store failed: \(error)"]
    }
}

let arguments = CommandLine.arguments
if arguments.count == 4, arguments[1] == "worker", let seed = UInt64(arguments[3]) {
    do {
        try work(store: arguments[2], seed: seed)
    } catch {
        print("error: \(error)")
        exit(1)
    }
}

let kills = Int(commandLineOption("--kills") ?? "1000") ?? 1_000
let seed = UInt64(commandLineOption("--seed") ?? "\(UInt64.random(in: 1...1_000_000))") ?? 1
var random = SplitMix64(seed: seed)
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("osd-ledger-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
let onPostgres = CommandLine.arguments.contains("--postgres")
let store = onPostgres
    ? "postgres:ledger_" + String(UInt64.random(in: 1...UInt64.max), radix: 36)
    : folder.appendingPathComponent("ledger.store").path
var violations: [String] = []
var verified = Verified()
var killedWhileWriting = 0
var made = 0
let started = Date()
for kill in 0..<kills {
    let worker = Process()
    worker.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    worker.arguments = ["worker", store, "\(UInt64.random(in: 1...UInt64.max, using: &random))"]
    let output = Pipe()
    worker.standardOutput = output
    try worker.run()
    // Half the kills after the writer said it started (mid-save), half at any moment of its start.
    if kill % 2 == 0 { _ = output.fileHandleForReading.availableData }
    usleep(UInt32.random(in: 0..<200_000, using: &random))
    Glibc.kill(worker.processIdentifier, SIGKILL)
    worker.waitUntilExit()
    made += 1
    if worker.terminationReason == .uncaughtSignal { killedWhileWriting += 1 }
    // The integrity check reads the whole file: after the first 50 kills, every tenth and the last.
    let found = verify(store: store, &verified, integrity: kill < 50 || kill % 10 == 0 || kill == kills - 1)
    violations += found.map { "kill \(kill): \($0)" }
    if !found.isEmpty { break }
}
let context = ModelContext(try container(store))
let entries = try context.fetchCount(FetchDescriptor<FuzzItem>())
print("LedgerKill --kills \(kills) --seed \(seed)\(onPostgres ? " --postgres" : ""): \(made) kills (\(killedWhileWriting) while the writer ran), \(entries) transfers in the ledger, \(violations.count) violations, \(Int(Date().timeIntervalSince(started))) s")
for violation in violations { print("  \(violation)") }
// `exit` ends the process before any `defer` of top-level code would run.
try? FileManager.default.removeItem(at: folder)
exit(violations.isEmpty ? 0 : 1)
