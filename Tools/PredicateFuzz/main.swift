import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import PredicateFuzzing

// Random predicates against the SQLite store (in memory), or with --postgres against a
// PostgreSQL server (OSD_POSTGRES_URL, each seed in a namespace of its own), checked against
// `Predicate.evaluate` on plain values.
//
//   swift run -c release PredicateFuzz [--seed N] [--count N] [--seeds N] [--rows N] [--depth N]
//   Scripts/with-postgres.sh swift run -c release PredicateFuzz --postgres [options]
//
// Each seed saves its own random rows and checks `--count` predicates; a mismatch prints the
// predicate and the command that reruns its seed. Exits 1 on any mismatch.

var options: [String: UInt64] = ["--count": 10_000, "--seeds": 1, "--rows": 200, "--depth": 4]
var server: URL?
var arguments = CommandLine.arguments.dropFirst()
while let name = arguments.popFirst() {
    if name == "--postgres" {
        guard let text = ProcessInfo.processInfo.environment["OSD_POSTGRES_URL"], let url = URL(string: text) else {
            print("--postgres needs OSD_POSTGRES_URL (Scripts/with-postgres.sh sets it)")
            exit(2)
        }
        server = url
        continue
    }
    guard options[name] != nil || name == "--seed", let text = arguments.popFirst(), let value = UInt64(text) else {
        print("usage: PredicateFuzz [--postgres] [--seed N] [--count N] [--seeds N] [--rows N] [--depth N]")
        exit(2)
    }
    options[name] = value
}

/// The store a seed's run saves its rows to.
@MainActor func configuration(seed: UInt64) -> any DataStoreConfiguration {
    guard let server else { return ModelConfiguration(isStoredInMemoryOnly: true) }
    let name = "fuzz\(seed)x" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
    return PostgresStoreConfiguration(name: name, schema: PredicateFuzzRun.schema, url: server)
}
let first = options["--seed"] ?? UInt64.random(in: 1...UInt64(UInt32.max))
var total = 0
var failures = 0
let start = Date()
for seed in first..<(first + options["--seeds"]!) {
    let run = try PredicateFuzzRun(
        seed: seed, count: Int(options["--count"]!), rowCount: Int(options["--rows"]!), maximumDepth: Int(options["--depth"]!),
        configuration: configuration(seed: seed))
    total += run.checked
    failures += run.mismatches.count
    for mismatch in run.mismatches.prefix(10) { print("seed \(seed): \(mismatch)") }
    if !run.mismatches.isEmpty {
        print("rerun: swift run -c release PredicateFuzz\(server == nil ? "" : " --postgres") --seed \(seed) --count \(options["--count"]!) --rows \(options["--rows"]!) --depth \(options["--depth"]!)")
    }
}
let seconds = Date().timeIntervalSince(start)
print("\(total) predicates over \(options["--seeds"]!) seed(s) from \(first): \(failures) mismatches, \(String(format: "%.1f", seconds)) s")
exit(failures == 0 ? 0 : 1)
