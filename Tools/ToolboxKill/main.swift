import Foundation
import OpenSwiftDataToolbox
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Writers of the preferences file and of the disk cache, killed with SIGKILL at random moments.
// After each kill, a new reader must find the preferences file whole (it parses, every value
// decodes, a record's parts agree, no committed counter is lost, a key written once is still
// there) and every disk-cache entry either whole or missing, never torn or another key's.
//
//   ToolboxKill [--kills N] [--seed S]     kills per store (default 200), prints the report, exits 1 on a violation
//   ToolboxKill preferences-worker FILE S  sets the preferences until killed
//   ToolboxKill cache-worker DIRECTORY S   writes cache entries until killed

/// A preference whose parts must agree: `payload` is `counter`, repeated.
struct Record: Codable, Sendable {
    var counter: Int
    var payload: [Int]
}

let recordKey = Preferences.Key("record", default: Record(counter: 0, payload: []))
let anchorKey = Preferences.Key("anchor", default: "")
let cacheKeys = 64

/// Cache contents that say which key and generation wrote them, and what every byte must be.
func cacheContents(key: String, generation: UInt64, length: Int) -> Data {
    var data = Data()
    withUnsafeBytes(of: generation.littleEndian) { data.append(contentsOf: $0) }
    data.append(UInt8(key.utf8.count))
    data.append(contentsOf: Array(key.utf8))
    for index in 0..<length {
        data.append(UInt8(truncatingIfNeeded: generation &+ UInt64(index)))
    }
    return data
}

/// Whether `data` is what ``cacheContents(key:generation:length:)`` writes for `key`.
func isWhole(_ data: Data, for key: String) -> Bool {
    let bytes = [UInt8](data)
    guard bytes.count >= 9 else { return false }
    let generation = bytes[0..<8].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * $1.offset) }
    let keyLength = Int(bytes[8])
    guard bytes.count >= 9 + keyLength, Array(bytes[9..<9 + keyLength]) == Array(key.utf8) else { return false }
    for (index, byte) in bytes[(9 + keyLength)...].enumerated() where byte != UInt8(truncatingIfNeeded: generation &+ UInt64(index)) {
        return false
    }
    return true
}

func preferencesWorker(file: String, seed: UInt64) throws -> Never {
    let preferences = Preferences(fileURL: URL(fileURLWithPath: file))
    if try preferences.storedValue(for: anchorKey) == nil { try preferences.set("kept", for: anchorKey) }
    var random = SystemRandomNumberGenerator()
    print("started")
    fflush(nil)
    while true {
        let next = try (preferences.storedValue(for: recordKey)?.counter ?? 0) + 1
        let size = Int.random(in: 1...2_000, using: &random)
        try preferences.set(Record(counter: next, payload: Array(repeating: next, count: size)), for: recordKey)
        try preferences.set(next, for: Preferences.Key("key \(next % 20)", default: 0))
    }
}

func cacheWorker(directory: String, seed: UInt64) throws -> Never {
    let cache = try DiskCache(directory: URL(fileURLWithPath: directory), limits: .init(size: 2 * 1024 * 1024))
    var generation = seed << 20
    print("started")
    fflush(nil)
    while true {
        generation += 1
        let key = "key \(Int.random(in: 0..<cacheKeys))"
        try cache.setData(cacheContents(key: key, generation: generation, length: Int.random(in: 0...65_536)), forKey: key)
    }
}

/// Starts a worker, lets it run for a random moment after it started, and kills it.
func runAndKill(_ arguments: [String], upTo milliseconds: Int) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    _ = output.fileHandleForReading.availableData
    usleep(UInt32(Int.random(in: 1...milliseconds) * 1_000))
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
}

func report(kills: Int, seed: UInt64) throws -> Int {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ToolboxKill-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    var violations: [String] = []

    let file = directory.appendingPathComponent("preferences.json")
    var lastCounter = 0
    for kill in 0..<kills {
        try runAndKill(["preferences-worker", file.path, "\(seed &+ UInt64(kill))"], upTo: 150)
        let preferences = Preferences(fileURL: file)
        do {
            let record = try preferences.storedValue(for: recordKey) ?? Record(counter: 0, payload: [])
            if record.payload.contains(where: { $0 != record.counter }) {
                violations.append("kill \(kill): a record whose parts disagree (counter \(record.counter))")
            }
            if record.counter < lastCounter {
                violations.append("kill \(kill): counter \(record.counter) after \(lastCounter): a committed write was lost")
            }
            lastCounter = max(lastCounter, record.counter)
            if try preferences.storedValue(for: anchorKey) != "kept" {
                violations.append("kill \(kill): the key written once is gone")
            }
            for name in try preferences.storedKeys() where name.hasPrefix("key ") {
                _ = try preferences.storedValue(for: Preferences.Key(name, default: 0))
            }
        } catch {
            violations.append("kill \(kill): the preferences file doesn't read: \(error)")
        }
    }
    print("preferences: \(kills) kills, last counter \(lastCounter)")

    let cacheDirectory = directory.appendingPathComponent("cache")
    var entriesSeen = 0
    for kill in 0..<kills {
        try runAndKill(["cache-worker", cacheDirectory.path, "\(seed &+ UInt64(kill))"], upTo: 150)
        let cache = try DiskCache(directory: cacheDirectory, limits: .init(size: 2 * 1024 * 1024))
        for index in 0..<cacheKeys {
            let key = "key \(index)"
            do {
                guard let data = try cache.data(forKey: key) else { continue }
                entriesSeen += 1
                if !isWhole(data, for: key) { violations.append("kill \(kill): a torn or foreign entry for \(key)") }
            } catch {
                violations.append("kill \(kill): reading \(key) failed: \(error)")
            }
        }
    }
    print("cache: \(kills) kills, \(entriesSeen) whole entries read")
    for violation in violations.prefix(20) { print(violation) }
    print("\(violations.count) violations")
    return violations.count
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "preferences-worker" where arguments.count == 3:
        try preferencesWorker(file: arguments[1], seed: UInt64(arguments[2]) ?? 1)
    case "cache-worker" where arguments.count == 3:
        try cacheWorker(directory: arguments[1], seed: UInt64(arguments[2]) ?? 1)
    default:
        var kills = 200
        var seed = UInt64.random(in: 1...1_000_000)
        var rest = arguments[...]
        while let option = rest.popFirst() {
            switch option {
            case "--kills": kills = rest.popFirst().flatMap(Int.init) ?? kills
            case "--seed": seed = rest.popFirst().flatMap(UInt64.init) ?? seed
            default:
                print("usage: ToolboxKill [--kills N] [--seed S]")
                exit(2)
            }
        }
        print("seed \(seed)")
        exit(try report(kills: kills, seed: seed) == 0 ? 0 : 1)
    }
} catch {
    print("error: \(error)")
    exit(1)
}
