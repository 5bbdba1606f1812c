import CSQLite
import Foundation
import OpenSwiftData

/// What a killed process was doing to the store, and how the next open must find it.
public enum KillScenario: String, CaseIterable, Sendable {
    /// V1 → V2 by a plan whose custom stage fills `doubled` in `didMigrate`.
    case didMigrate
    /// The same, with a `willMigrate` that changes every label first.
    case willMigrate
    /// V1 → V2 → V3 by a plan of two custom stages.
    case twoStages
    /// V1 opened as V2 without a plan: a lightweight migration on open (a table rebuild).
    case lightweight
    /// A new store being created with its first save.
    case creation
    /// V1 → V2 by a plan whose `didMigrate` fails after migrating every row: killed before, during
    /// or after putting the store back, it must open as V1 with every row.
    case failing
    /// V3 → V2 by a plan whose explicit stage goes back (``KillDowngradePlan``), from a V3 store.
    case downgrade

    /// The rows' contents, from their keys.
    static func value(_ key: Int) -> Int { key % 997 }
    static func label(_ key: Int) -> String { "label-\(key)" }

    /// Writes a V1 store of `rows` rows in one save.
    public static func createStore(at url: URL, rows: Int) throws {
        try createStore(.file(url), rows: rows)
    }

    /// Writes the store this scenario's process starts from, `rows` rows in one save: V3 for
    /// ``downgrade``, V1 for the others.
    public func createStartingStore(_ store: KillStore, rows: Int) throws {
        guard self == .downgrade else { return try Self.createStore(store, rows: rows) }
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: KillV3.self), configurations: [store.configuration]))
        for key in 0..<rows {
            let row = KillV3.Row(key: key, value: Self.value(key), title: Self.label(key))
            row.doubled = row.value * 2
            row.sum = row.value + row.doubled
            context.insert(row)
        }
        try context.save()
    }

    /// Writes a V1 store of `rows` rows in one save.
    public static func createStore(_ store: KillStore, rows: Int) throws {
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: KillV1.self), configurations: [store.configuration]))
        for key in 0..<rows { context.insert(KillV1.Row(key: key, value: value(key), label: label(key))) }
        try context.save()
    }

    /// Opens the store as this scenario's process does (and migrates it).
    public func migrate(at url: URL) throws {
        try migrate(.file(url))
    }

    /// Opens the store as this scenario's process does (and migrates it).
    public func migrate(_ store: KillStore) throws {
        let configurations = [store.configuration]
        switch self {
        case .didMigrate: _ = try ModelContainer(for: Schema(versionedSchema: KillV2.self), migrationPlan: KillPlan.self, configurations: configurations)
        case .willMigrate: _ = try ModelContainer(for: Schema(versionedSchema: KillV2.self), migrationPlan: KillWillMigratePlan.self, configurations: configurations)
        case .twoStages: _ = try ModelContainer(for: Schema(versionedSchema: KillV3.self), migrationPlan: KillTwoStagePlan.self, configurations: configurations)
        case .lightweight: _ = try ModelContainer(for: Schema(versionedSchema: KillV2.self), configurations: configurations)
        case .creation: break
        case .downgrade: _ = try ModelContainer(for: Schema(versionedSchema: KillV2.self), migrationPlan: KillDowngradePlan.self, configurations: configurations)
        case .failing:
            do {
                _ = try ModelContainer(for: Schema(versionedSchema: KillV2.self), migrationPlan: KillFailingPlan.self, configurations: configurations)
                throw KillScenarioError.failingPlanSucceeded
            } catch let error as SwiftDataError where error == .migrationFailed {
                // As the plan meant: the store was put back.
            }
        }
    }

    /// Checks a store after a kill: opening it with the old version works unless the migration
    /// had finished (when `openOldFirst`), then opening it as the scenario does gives every row
    /// fully migrated, the file passes `PRAGMA integrity_check`, and no migration file is left.
    /// Returns what is wrong, empty when nothing is.
    public func verify(at url: URL, rows: Int, openOldFirst: Bool) -> [String] {
        verify(.file(url), rows: rows, openOldFirst: openOldFirst)
    }

    /// Checks a store after a kill (see ``verify(at:rows:openOldFirst:)``); a PostgreSQL store has
    /// no file to check, and must be as the last committed transaction left it.
    public func verify(_ store: KillStore, rows: Int, openOldFirst: Bool) -> [String] {
        var violations: [String] = []
        let unfinished: Bool
        if case .file(let url) = store { unfinished = FileManager.default.fileExists(atPath: url.path + ".osd-migration") } else { unfinished = false }
        // The old version of a downgrade is the newer one, whose open would migrate a store the
        // downgrade had finished forward again: its rows are checked after the plan instead.
        if (openOldFirst || self == .creation || self == .failing) && self != .downgrade {
            do {
                let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: KillV1.self), configurations: [store.configuration]))
                let found = try context.fetch(FetchDescriptor<KillV1.Row>(sortBy: [SortDescriptor(\.key)]))
                let expected = self == .creation && found.isEmpty ? 0 : rows
                if found.count != expected { violations.append("opened with V1: \(found.count) rows, not \(expected)") }
                if let wrong = found.enumerated().first(where: { $0.element.key != $0.offset || $0.element.value != Self.value($0.offset) || $0.element.label != Self.label($0.offset) }) {
                    violations.append("opened with V1: row \(wrong.offset) is \(wrong.element.key), \(wrong.element.value), \(wrong.element.label)")
                }
            } catch {
                if unfinished || self == .creation || self == .failing { violations.append("opening with V1 failed before the migration had finished: \(error)") }
            }
        }
        if self != .creation {
            do {
                try migrate(store)
                if self != .failing { violations += checkMigratedRows(store, rows: rows) }
            } catch {
                violations.append("opening as \(rawValue) failed: \(error)")
            }
        }
        violations += store.fileProblems
        return violations
    }

    private func checkMigratedRows(_ store: KillStore, rows: Int) -> [String] {
        do {
            let configuration = store.configuration
            var found: [(key: Int, value: Int, title: String, doubled: Int, sum: Int)] = []
            if self == .twoStages {
                let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: KillV3.self), configurations: [configuration]))
                found = try context.fetch(FetchDescriptor<KillV3.Row>(sortBy: [SortDescriptor(\.key)])).map { ($0.key, $0.value, $0.title, $0.doubled, $0.sum) }
            } else {
                let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: KillV2.self), configurations: [configuration]))
                found = try context.fetch(FetchDescriptor<KillV2.Row>(sortBy: [SortDescriptor(\.key)])).map { ($0.key, $0.value, $0.title, $0.doubled, 0) }
            }
            guard found.count == rows else { return ["migrated: \(found.count) rows, not \(rows)"] }
            for (offset, row) in found.enumerated() {
                let value = Self.value(offset)
                let title = Self.label(offset) + (self == .willMigrate ? "!" : self == .downgrade ? "<" : "")
                let doubled = self == .lightweight ? 0 : self == .downgrade ? value * 3 : value * 2
                let sum = self == .twoStages ? value + doubled : 0
                if row.key != offset || row.value != value || row.title != title || row.doubled != doubled || row.sum != sum {
                    return ["migrated: row \(offset) is \(row), expected (\(offset), \(value), \(title), \(doubled), \(sum))"]
                }
            }
            return []
        } catch {
            return ["reading the migrated rows failed: \(error)"]
        }
    }

    /// `PRAGMA integrity_check` and no migration file beside the store: what is wrong, one line each.
    public static func checkFile(at url: URL) -> [String] {
        var violations: [String] = []
        var db: OpaquePointer?
        if sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK {
            var statement: OpaquePointer?
            if sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &statement, nil) == SQLITE_OK, sqlite3_step(statement) == SQLITE_ROW,
               let text = sqlite3_column_text(statement, 0) {
                let verdict = String(cString: text)
                if verdict != "ok" { violations.append("integrity_check: \(verdict)") }
            } else {
                violations.append("integrity_check could not run")
            }
            sqlite3_finalize(statement)
        } else {
            violations.append("the store does not open with SQLite")
        }
        sqlite3_close_v2(db)
        let directory = url.deletingLastPathComponent()
        let leftovers = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.contains(".osd-migration") }
        if !leftovers.isEmpty { violations.append("files left beside the store: \(leftovers.sorted())") }
        return violations
    }
}

extension KillScenario {
    /// Writes the WAL of a closed store into its file, so that the file alone is the store.
    public static func checkpoint(_ url: URL) throws {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK,
              sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nil, nil, nil) == SQLITE_OK
        else { throw KillRunError.checkpointFailed(url.path) }
    }
}

/// Why a scenario's migration did not go as the scenario means.
public enum KillScenarioError: Error, CustomStringConvertible {
    /// ``KillFailingPlan`` migrated the store instead of failing.
    case failingPlanSucceeded

    public var description: String {
        switch self {
        case .failingPlanSucceeded: "the failing plan migrated the store"
        }
    }
}
