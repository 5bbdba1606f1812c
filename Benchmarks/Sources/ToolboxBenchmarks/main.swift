import Foundation
import OpenSwiftDataToolbox

// The toolbox's caches next to what an app would write by hand, in one run:
//   memory: MemoryCache against a `[String: Data]` behind a lock (no limit, no eviction);
//   disk:   DiskCache against plain files, one per key, written with `Data.write(options: .atomic)`
//           and read with `Data(contentsOf:)` (no expiry, no checksum, no eviction).
// Eviction: the cost of a write that evicts, in memory (count limit) and on disk (size limit).
//
//   swift run -c release ToolboxBenchmarks [--runs N]    medians of N runs (default 5)

let runs = CommandLine.arguments.firstIndex(of: "--runs").flatMap { index in
    CommandLine.arguments.dropFirst(index + 1).first.flatMap(Int.init)
} ?? 5
let keys = (0..<10_000).map { "https://example.com/images/\($0).png" }
let payload = Data((0..<4_096).map { UInt8(truncatingIfNeeded: $0) })

/// The median of `runs` timings of `body`, in seconds.
func median(_ body: () throws -> Void) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return times.sorted()[times.count / 2]
}

func row(_ name: String, operations: Int, baseline: Double, ours: Double) {
    let format = { (seconds: Double) in String(format: "%.0f", Double(operations) / seconds) }
    print("| \(name) | \(format(baseline)) | \(format(ours)) | \(String(format: "%.2f", ours / baseline)) |")
}

/// The baseline memory cache: a dictionary behind a lock.
final class LockedDictionary: @unchecked Sendable {
    // Invariant: `values` is touched only under `lock`.
    private let lock = NSLock()
    private var values: [String: Data] = [:]
    func get(_ key: String) -> Data? { lock.withLock { values[key] } }
    func set(_ value: Data, _ key: String) { lock.withLock { values[key] = value } }
}

let root = FileManager.default.temporaryDirectory.appendingPathComponent("ToolboxBenchmarks-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: root) }

print("| operation (10,000 keys, 4 KiB values) | baseline ops/s | toolbox ops/s | time × baseline |")
print("|---|---:|---:|---:|")

// Memory: hits.
let dictionary = LockedDictionary()
let memory = MemoryCache<String, Data>(limits: .init(count: 20_000))
for key in keys {
    dictionary.set(payload, key)
    memory.setValue(payload, forKey: key, cost: payload.count)
}
let hitRounds = 20
let dictionaryHits = median { for _ in 0..<hitRounds { for key in keys { _ = dictionary.get(key) } } }
let memoryHits = median { for _ in 0..<hitRounds { for key in keys { _ = memory.value(forKey: key) } } }
row("memory hit", operations: keys.count * hitRounds, baseline: dictionaryHits, ours: memoryHits)

// Memory: writes, and writes that each evict the least recently used entry.
let dictionaryWrites = median { for key in keys { dictionary.set(payload, key) } }
let memoryWrites = median { for key in keys { memory.setValue(payload, forKey: key, cost: payload.count) } }
row("memory write", operations: keys.count, baseline: dictionaryWrites, ours: memoryWrites)
let evicting = MemoryCache<String, Data>(limits: .init(count: 1_000))
let memoryEvictions = median { for key in keys { evicting.setValue(payload, forKey: key, cost: payload.count) } }
row("memory write that evicts (limit 1,000)", operations: keys.count, baseline: dictionaryWrites, ours: memoryEvictions)

// Disk: writes, hits.
let plainDirectory = root.appendingPathComponent("plain")
try FileManager.default.createDirectory(at: plainDirectory, withIntermediateDirectories: true)
let plainURLs = keys.indices.map { plainDirectory.appendingPathComponent("\($0)") }
let disk = try DiskCache(directory: root.appendingPathComponent("disk"), limits: .init(size: 1 << 30))
let plainWrites = try median { for url in plainURLs { try payload.write(to: url, options: .atomic) } }
let diskWrites = try median { for key in keys { try disk.setData(payload, forKey: key) } }
row("disk write", operations: keys.count, baseline: plainWrites, ours: diskWrites)
let plainHits = try median { for url in plainURLs { _ = try Data(contentsOf: url) } }
let diskHits = try median { for key in keys { _ = try disk.data(forKey: key) } }
row("disk hit", operations: keys.count, baseline: plainHits, ours: diskHits)

// Disk: writes past the size limit (about 2,000 entries fit), each trim removing a quarter.
let evictingDisk = try DiskCache(directory: root.appendingPathComponent("evicting"), limits: .init(size: 2_000 * 4_200))
let diskEvictions = try median { for key in keys { try evictingDisk.setData(payload, forKey: key) } }
row("disk write that evicts (limit ~2,000 entries)", operations: keys.count, baseline: plainWrites, ours: diskEvictions)
