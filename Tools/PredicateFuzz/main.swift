import Foundation
import PredicateFuzzing

// Random predicates against the SQLite store, checked against `Predicate.evaluate` on plain values.
//
//   swift run -c release PredicateFuzz [--seed N] [--count N] [--seeds N] [--rows N] [--depth N]
//
// Each seed saves its own random rows and checks `--count` predicates; a mismatch prints the
// predicate and the command that reruns its seed. Exits 1 on any mismatch.

var options: [String: UInt64] = ["--count": 10_000, "--seeds": 1, "--rows": 200, "--depth": 4]
var arguments = CommandLine.arguments.dropFirst()
while let name = arguments.popFirst() {
    guard options[name] != nil || name == "--seed", let text = arguments.popFirst(), let value = UInt64(text) else {
        print("usage: PredicateFuzz [--seed N] [--count N] [--seeds N] [--rows N] [--depth N]")
        exit(2)
    }
    options[name] = value
}
let first = options["--seed"] ?? UInt64.random(in: 1...UInt64(UInt32.max))
var total = 0
var failures = 0
let start = Date()
for seed in first..<(first + options["--seeds"]!) {
    let run = try PredicateFuzzRun(
        seed: seed, count: Int(options["--count"]!), rowCount: Int(options["--rows"]!), maximumDepth: Int(options["--depth"]!))
    total += run.checked
    failures += run.mismatches.count
    for mismatch in run.mismatches.prefix(10) { print("seed \(seed): \(mismatch)") }
    if !run.mismatches.isEmpty {
        print("rerun: swift run -c release PredicateFuzz --seed \(seed) --count \(options["--count"]!) --rows \(options["--rows"]!) --depth \(options["--depth"]!)")
    }
}
let seconds = Date().timeIntervalSince(start)
print("\(total) predicates over \(options["--seeds"]!) seed(s) from \(first): \(failures) mismatches, \(String(format: "%.1f", seconds)) s")
exit(failures == 0 ? 0 : 1)
