import Foundation
import MigrationScenarios
import OpenSwiftData
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The disk fills: the process's file-size limit (RLIMIT_FSIZE) is lowered so that SQLite's writes
// fail as on a full disk, during a save and during migrations, then raised again (a disk with
// space freed).

/// Limits the size of every file this process writes to `bytes` (or lifts the limit: `nil`).
func limitFileSize(to bytes: Int?) {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit)
    limit.rlim_cur = bytes.map { rlim_t($0) } ?? limit.rlim_max
    setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit)
}

func size(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
}

/// A save that runs out of space throws, leaves the store valid and the context's changes in
/// place, and succeeds once space is freed.
func saveWhenFull(in folder: URL) throws {
    let url = folder.appendingPathComponent("save.store")
    try KillScenario.createStore(at: url, rows: 100)
    let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: KillV1.self), configurations: ModelConfiguration(url: url)))
    _ = try context.fetchCount(FetchDescriptor<KillV1.Row>())
    limitFileSize(to: max(size(url.path), size(url.path + "-wal")) + 256 * 1024)
    var key = 100
    var thrown: (any Error)?
    for _ in 0..<100 where thrown == nil {
        for _ in 0..<200 {
            context.insert(KillV1.Row(key: key, value: key, label: String(repeating: "x", count: 1_000)))
            key += 1
        }
        do { try context.save() } catch { thrown = error }
    }
    check(thrown is SwiftDataError, "a save on a full disk throws a SwiftDataError: \(thrown.map { "\($0)" } ?? "nothing thrown")")
    check(context.hasChanges && context.insertedModelsArray.count == 200, "the context keeps the failed save's 200 inserts (\(context.insertedModelsArray.count))")
    let saved = key - 200
    limitFileSize(to: nil)
    check(KillScenario.checkFile(at: url).isEmpty, "the store passes the integrity check")
    let reader = ModelContext(try ModelContainer(for: Schema(versionedSchema: KillV1.self), configurations: ModelConfiguration(url: url)))
    check(try reader.fetchCount(FetchDescriptor<KillV1.Row>()) == saved, "the store holds the \(saved) rows saved before the disk filled")
    try context.save()
    check(try reader.fetchCount(FetchDescriptor<KillV1.Row>()) == key, "the save retried after space is freed lands (\(key) rows)")
}

/// A migration that runs out of space throws and leaves the store as it was; it succeeds once
/// space is freed. `headroom` is the limit relative to the store's size: below it, the backup
/// cannot be written; above it, the migration's own writes fail.
func migrationWhenFull(in folder: URL, name: String, limit: (Int) -> Int) throws {
    let url = folder.appendingPathComponent("\(name).store")
    let rows = 5_000
    try KillScenario.createStore(at: url, rows: rows)
    try KillScenario.checkpoint(url)
    limitFileSize(to: limit(size(url.path)))
    var thrown: (any Error)?
    do { try KillScenario.didMigrate.migrate(at: url) } catch { thrown = error }
    limitFileSize(to: nil)
    check(thrown != nil, "\(name): a migration on a full disk throws: \(thrown.map { "\($0)" } ?? "it finished")")
    let problems = KillScenario.didMigrate.verify(at: url, rows: rows, openOldFirst: true)
    check(problems.isEmpty, "\(name): the store opens with V1 intact, then migrates once space is freed \(problems)")
}

/// V1 → V2 whose `willMigrate` fills the disk: the backup is written, and the stage's own writes
/// (filling `doubled` in every row) then fail, and so may the restore of the backup.
enum DiskFillingPlan: SchemaMigrationPlan {
    nonisolated(unsafe) static var store: URL?
    static var schemas: [any VersionedSchema.Type] { [KillV1.self, KillV2.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: KillV1.self, toVersion: KillV2.self,
                 willMigrate: { _ in
                     guard let path = store?.path else { return }
                     limitFileSize(to: max(size(path), size(path + "-wal")) + 8 * 1024)
                 },
                 didMigrate: { context in
                     for row in try context.fetch(FetchDescriptor<KillV2.Row>()) { row.doubled = row.value * 2 }
                     try context.save()
                 })]
    }
}

/// A migration whose stage runs out of space after its backup was written throws, and the store
/// is as it was once space is freed (restored then, if the restore itself found no room).
func migrationWritesWhenFull(in folder: URL) throws {
    let url = folder.appendingPathComponent("stage.store")
    let rows = 5_000
    try KillScenario.createStore(at: url, rows: rows)
    try KillScenario.checkpoint(url)
    DiskFillingPlan.store = url
    var thrown: (any Error)?
    do {
        _ = try ModelContainer(for: Schema(versionedSchema: KillV2.self), migrationPlan: DiskFillingPlan.self, configurations: ModelConfiguration(url: url))
    } catch {
        thrown = error
    }
    limitFileSize(to: nil)
    check(thrown != nil, "space runs out after the backup: the migration throws: \(thrown.map { "\($0)" } ?? "it finished")")
    let problems = KillScenario.didMigrate.verify(at: url, rows: rows, openOldFirst: true)
    check(problems.isEmpty, "space runs out after the backup: the store opens with V1 intact, then migrates once space is freed \(problems)")
}

/// Runs every disk-full check.
func runDiskFullChecks(in folder: URL) throws {
    signal(SIGXFSZ, SIG_IGN)   // a write past the limit fails with EFBIG instead of ending the process
    try saveWhenFull(in: folder)
    try migrationWhenFull(in: folder, name: "no room for the backup") { $0 / 2 }
    try migrationWhenFull(in: folder, name: "no room for its first checkpoint") { $0 + 16 * 1024 }
    try migrationWritesWhenFull(in: folder)
}
