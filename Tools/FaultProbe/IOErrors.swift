import CFaultVFS
import Foundation
import MigrationScenarios
import OpenSwiftData

// I/O calls fail: a SQLite VFS (Tools/FaultVFS) fails the n-th read, write, sync, truncation or
// shared-memory mapping of the process, for every n a save, a fetch or an open makes, once (a
// transient error) or from then on (a disk that went away). Whatever call fails, the operation
// throws a SwiftDataError or succeeds; a failed save leaves the store as it was and the context
// with its changes, and the same save succeeds once the calls succeed again; the store passes
// SQLite's integrity check after each fault.

/// Version 1 of the books: ledgers with unique codes and their entries (cascading).
enum BooksV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Ledger.self, Entry.self] }

    @Model final class Ledger {
        @Attribute(.unique) var code: Int
        var balance: Int
        @Relationship(deleteRule: .cascade, inverse: \Entry.ledger) var entries: [Entry] = []
        init(code: Int, balance: Int) {
            self.code = code
            self.balance = balance
        }
    }

    @Model final class Entry {
        var amount: Int
        var ledger: Ledger?
        init(amount: Int) { self.amount = amount }
    }
}

/// Version 2: a new optional property and an index, which the open adds (a lightweight migration).
enum BooksV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Ledger.self, Entry.self] }

    @Model final class Ledger {
        #Index<Ledger>([\.balance])
        @Attribute(.unique) var code: Int
        var balance: Int
        var note: String?
        @Relationship(deleteRule: .cascade, inverse: \Entry.ledger) var entries: [Entry] = []
        init(code: Int, balance: Int) {
            self.code = code
            self.balance = balance
        }
    }

    @Model final class Entry {
        var amount: Int
        var ledger: Ledger?
        init(amount: Int) { self.amount = amount }
    }
}

/// What the books hold: each ledger's balance and its entries' amounts, by code.
struct Books: Equatable, CustomStringConvertible {
    var ledgers: [Int: Balance] = [:]

    struct Balance: Equatable {
        var balance: Int
        var amounts: [Int]
    }

    var description: String {
        ledgers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.balance) \($0.value.amounts)" }.joined(separator: ", ")
    }

    /// Empty books.
    init() {}

    /// The books of version 1's ledgers.
    init(_ ledgers: [BooksV1.Ledger]) {
        for ledger in ledgers {
            self.ledgers[ledger.code] = Balance(balance: ledger.balance, amounts: ledger.entries.map(\.amount).sorted())
        }
    }

    /// The books of version 2's ledgers.
    init(_ ledgers: [BooksV2.Ledger]) {
        for ledger in ledgers {
            self.ledgers[ledger.code] = Balance(balance: ledger.balance, amounts: ledger.entries.map(\.amount).sorted())
        }
    }

    /// Reads the books from the store at `url` through a container of its own.
    static func read(at url: URL) throws -> Books {
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: BooksV1.self), configurations: ModelConfiguration(url: url)))
        return Books(try context.fetch(FetchDescriptor<BooksV1.Ledger>()))
    }
}

/// The kinds of I/O call, each alone and all together, with their names.
let faultKinds: [(kinds: Int32, name: String)] = [
    (Int32(OSD_FAULT_READ), "read"), (Int32(OSD_FAULT_WRITE), "write"), (Int32(OSD_FAULT_SYNC), "sync"),
    (Int32(OSD_FAULT_TRUNCATE), "truncate"), (Int32(OSD_FAULT_SHM), "shared memory"),
]

/// Makes one round of changes in `context`: every third round, a deletion by predicate of the
/// ledgers another container added (run in SQL at the save); otherwise a new ledger with two
/// entries, a balance changed, a ledger deleted (its entries with it), an entry added to another.
/// Returns the books expected after the save, from `books`.
func stageChanges(round: Int, in context: ModelContext, onto books: Books) throws -> Books {
    var expected = books
    if round % 3 == 0 {
        try context.delete(model: BooksV1.Ledger.self, where: #Predicate { $0.code >= 50_000 })
        expected.ledgers = expected.ledgers.filter { $0.key < 50_000 }
        return expected
    }
    let ledgers = try context.fetch(FetchDescriptor<BooksV1.Ledger>(sortBy: [SortDescriptor(\.code)]))
    let code = 10_000 + round
    let ledger = BooksV1.Ledger(code: code, balance: round)
    context.insert(ledger)
    ledger.entries = [BooksV1.Entry(amount: round), BooksV1.Entry(amount: -round)]
    expected.ledgers[code] = .init(balance: round, amounts: [-round, round])
    if let first = ledgers.first {
        first.balance += 1
        expected.ledgers[first.code]?.balance += 1
    }
    if ledgers.count > 4 {
        let victim = ledgers[ledgers.count / 2]
        context.delete(victim)
        expected.ledgers[victim.code] = nil
    }
    if let last = ledgers.last, ledgers.count > 1 {
        last.entries.append(BooksV1.Entry(amount: round % 7))
        expected.ledgers[last.code]?.amounts.append(round % 7)
        expected.ledgers[last.code]?.amounts.sort()
    }
    return expected
}

/// Fails the n-th call of `kinds` during a save, for every n the save makes: each failed save
/// throws a SwiftDataError, leaves the store as it was (and valid) and the context with its
/// changes, and the same save then succeeds. With `sticky`, the calls go on failing and a second
/// save throws too, before they succeed again.
func savesMeetingFaults(in folder: URL, kinds: Int32, name: String, sticky: Bool) throws {
    let url = folder.appendingPathComponent("save-\(name.replacingOccurrences(of: " ", with: "-"))-\(sticky).store")
    let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: BooksV1.self), configurations: ModelConfiguration(url: url)))
    var books = Books()
    var round = 0
    var failedSaves = 0
    var savesDone = 0
    var quietSaves = 0
    var problems: [String] = []
    // Another container writes before each save, so that the saving connection reads again
    // what it had cached.
    let neighbour = ModelContext(try ModelContainer(for: Schema(versionedSchema: BooksV1.self), configurations: ModelConfiguration(url: url)))
    for countdown in 1... {
        round += 1
        neighbour.insert(BooksV1.Ledger(code: 50_000 + round, balance: 0))
        try neighbour.save()
        savesDone += 1
        books.ledgers[50_000 + round] = .init(balance: 0, amounts: [])
        let expected = try stageChanges(round: round, in: context, onto: books)
        osd_fault_arm(kinds, countdown, sticky ? 1 : 0)
        do {
            try context.save()
            osd_fault_disarm()
            savesDone += 1
            let stored = try Books.read(at: url)
            if stored != expected { problems.append("call \(countdown): the save succeeded but the store holds \(stored), not \(expected)") }
            books = expected
            // Rounds differ in size: stop once three saves in a row made fewer calls.
            quietSaves = osd_fault_fired() == 0 ? quietSaves + 1 : 0
            if quietSaves == 3 { break }
        } catch {
            quietSaves = 0
            failedSaves += 1
            if !(error is SwiftDataError) { problems.append("call \(countdown): the save threw \(type(of: error)), not a SwiftDataError: \(error)") }
            if sticky {
                do {
                    try context.save()
                    problems.append("call \(countdown): a second save succeeded while the calls still fail")
                } catch {}
            }
            osd_fault_disarm()
            if !context.hasChanges { problems.append("call \(countdown): the context lost its changes") }
            let stored = try Books.read(at: url)
            if stored != books { problems.append("call \(countdown): the failed save changed the store to \(stored), not \(books)") }
            let violations = KillScenario.checkFile(at: url)
            if !violations.isEmpty { problems.append("call \(countdown): \(violations)") }
            do {
                try context.save()
                savesDone += 1
                let retried = try Books.read(at: url)
                if retried != expected { problems.append("call \(countdown): the retried save left \(retried), not \(expected)") }
                books = expected
            } catch {
                problems.append("call \(countdown): the save retried once the calls succeed threw \(error)")
                break
            }
        }
        if countdown > 2_000 {
            problems.append("a save still met faults after 2,000 calls")
            break
        }
        if problems.count > 5 { break }
    }
    let own = Books(try context.fetch(FetchDescriptor<BooksV1.Ledger>()))
    if own != books { problems.append("the saving context sees \(own), not \(books)") }
    // The history holds one transaction per save that succeeded, none for those that failed.
    let transactions = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
    if transactions.count != savesDone { problems.append("the history holds \(transactions.count) transactions for \(savesDone) saves") }
    if transactions.contains(where: { $0.changes.isEmpty }) { problems.append("the history holds a transaction without changes") }
    check(problems.isEmpty, "saves meeting \(sticky ? "lasting" : "one-off") \(name) faults (\(failedSaves) failed): each throws, loses nothing and succeeds again \(problems)")
}

/// Fails the n-th I/O call of any kind during an update by predicate, for every n it makes: each
/// failed update throws a SwiftDataError and leaves the store as it was (and valid), the same
/// update then succeeds, the updating context sees what the store holds, and the history holds
/// one transaction per update that succeeded.
func updatesMeetingFaults(in folder: URL) throws {
    let url = folder.appendingPathComponent("update.store")
    let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: BooksV1.self), configurations: ModelConfiguration(url: url)))
    for code in 0..<40 { context.insert(BooksV1.Ledger(code: code, balance: 0)) }
    try context.save()
    _ = try context.fetch(FetchDescriptor<BooksV1.Ledger>())   // registered: they must follow the updates
    var books = try Books.read(at: url)
    var saves = 1
    var failedUpdates = 0
    var quietUpdates = 0
    var problems: [String] = []
    for countdown in 1... {
        let balance = countdown
        var expected = books
        for code in expected.ledgers.keys where code % 2 == 0 { expected.ledgers[code]?.balance = balance }
        /// The update, with its count checked.
        func update() throws {
            let count = try context.update(model: BooksV1.Ledger.self, where: #Predicate { $0.code % 2 == 0 }, set: \.balance, to: balance)
            if count != 20 { problems.append("call \(countdown): the update changed \(count) ledgers, not 20") }
        }
        osd_fault_arm(Int32(OSD_FAULT_ALL), countdown, 0)
        do {
            try update()
            osd_fault_disarm()
            quietUpdates = osd_fault_fired() == 0 ? quietUpdates + 1 : 0
        } catch {
            osd_fault_disarm()
            quietUpdates = 0
            failedUpdates += 1
            if !(error is SwiftDataError) { problems.append("call \(countdown): the update threw \(type(of: error)), not a SwiftDataError: \(error)") }
            let stored = try Books.read(at: url)
            if stored != books { problems.append("call \(countdown): the failed update changed the store to \(stored), not \(books)") }
            let violations = KillScenario.checkFile(at: url)
            if !violations.isEmpty { problems.append("call \(countdown): \(violations)") }
            do {
                try update()
            } catch {
                problems.append("call \(countdown): the update retried once the calls succeed threw \(error)")
                break
            }
        }
        saves += 1
        let stored = try Books.read(at: url)
        if stored != expected { problems.append("call \(countdown): the store holds \(stored), not \(expected)") }
        books = expected
        if quietUpdates == 3 || problems.count > 5 { break }
        if countdown > 2_000 {
            problems.append("an update still met faults after 2,000 calls")
            break
        }
    }
    let own = Books(try context.fetch(FetchDescriptor<BooksV1.Ledger>()))
    if own != books { problems.append("the updating context sees \(own), not \(books)") }
    let transactions = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
    if transactions.count != saves { problems.append("the history holds \(transactions.count) transactions for \(saves) saves") }
    check(problems.isEmpty, "updates by predicate meeting faults (\(failedUpdates) failed): each throws, changes nothing and succeeds again \(problems)")
}

/// Fails the n-th read or shared-memory mapping during a fetch through a fresh container, for
/// every n the fetch makes: each fetch throws a SwiftDataError or returns the books, and the
/// next fetch returns them.
func fetchesMeetingFaults(in folder: URL) throws {
    let url = folder.appendingPathComponent("save-all-false.store")
    let books = try Books.read(at: url)
    var problems: [String] = []
    var failedFetches = 0
    for countdown in 1... {
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: BooksV1.self), configurations: ModelConfiguration(url: url)))
        osd_fault_arm(Int32(OSD_FAULT_READ | OSD_FAULT_SHM), countdown, 0)
        do {
            let fetched = Books(try context.fetch(FetchDescriptor<BooksV1.Ledger>()))
            osd_fault_disarm()
            // A relationship whose load fails once is loaded again (a getter cannot throw).
            if fetched != books { problems.append("call \(countdown): the fetch returned \(fetched)") }
            if osd_fault_fired() == 0 { break }
        } catch {
            osd_fault_disarm()
            failedFetches += 1
            if !(error is SwiftDataError) { problems.append("call \(countdown): the fetch threw \(type(of: error)): \(error)") }
            let again = try? Books(context.fetch(FetchDescriptor<BooksV1.Ledger>()))
            if again != books { problems.append("call \(countdown): the next fetch returned \(again.map { "\($0)" } ?? "an error")") }
        }
        if countdown > 2_000 || problems.count > 5 { break }
    }
    check(problems.isEmpty, "fetches meeting read faults (\(failedFetches) failed): each throws or returns the books \(problems)")
}

/// The codes and balances a results observer holds, in its order.
func observed(_ observer: ResultsObserver<BooksV1.Ledger, Never>) -> [[Int]] {
    observer.results.map { [$0.code, $0.balance] }
}

/// Fails the n-th read or shared-memory mapping while a results observer catches up with another
/// context's save, for every n its update makes: each update either brings the results up to
/// date or keeps the previous ones and reports `updateError`; the next update is current and
/// clears the error.
func observersMeetingFaults(in folder: URL) throws {
    let url = folder.appendingPathComponent("observed.store")
    let container = try ModelContainer(for: Schema(versionedSchema: BooksV1.self), configurations: ModelConfiguration(url: url))
    let writer = ModelContext(container)
    let reader = ModelContext(container)
    let observer = try ResultsObserver<BooksV1.Ledger, Never>(
        filterBy: #Predicate { $0.balance >= 0 }, sortBy: [SortDescriptor(\.code)], modelContext: reader)
    var problems: [String] = []
    var failedUpdates = 0
    var quietUpdates = 0
    for countdown in 1... {
        let before = observed(observer)
        // Another context's save: a ledger added, one changed, one moved out of the filter.
        let ledgers = try writer.fetch(FetchDescriptor<BooksV1.Ledger>(sortBy: [SortDescriptor(\.code)]))
        writer.insert(BooksV1.Ledger(code: countdown, balance: countdown))
        if let first = ledgers.first { first.balance += 10 }
        if ledgers.count > 3 { ledgers[ledgers.count / 2].balance = -1 }
        try writer.save()
        osd_fault_arm(Int32(OSD_FAULT_READ | OSD_FAULT_SHM), countdown, 0)
        let during = observed(observer)
        let error = observer.updateError
        osd_fault_disarm()
        let fired = osd_fault_fired() != 0
        let expected = try writer.fetch(FetchDescriptor<BooksV1.Ledger>(predicate: #Predicate { $0.balance >= 0 }, sortBy: [SortDescriptor(\.code)]))
            .map { [$0.code, $0.balance] }
        if error != nil {
            failedUpdates += 1
            // The same models: their values may be the saved ones already (the context merged
            // the save before a later read failed).
            if during.map(\.[0]) != before.map(\.[0]) { problems.append("call \(countdown): a failed update changed the results from \(before) to \(during)") }
        } else if during != expected {
            problems.append("call \(countdown): the update gave \(during), not \(expected)")
        }
        let after = observed(observer)
        if after != expected { problems.append("call \(countdown): the next update gave \(after), not \(expected)") }
        if observer.updateError != nil { problems.append("call \(countdown): the next update kept its error") }
        quietUpdates = fired ? 0 : quietUpdates + 1
        if quietUpdates == 3 || countdown > 500 || problems.count > 5 { break }
    }
    check(problems.isEmpty, "a results observer meeting read faults (\(failedUpdates) updates failed): each is current or keeps its results and reports the error \(problems)")
}

/// Version 1 to 2 by a plan whose custom stage writes a note on every ledger in `didMigrate`.
enum NotingPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [BooksV1.self, BooksV2.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: BooksV1.self, toVersion: BooksV2.self, willMigrate: nil, didMigrate: { context in
            for ledger in try context.fetch(FetchDescriptor<BooksV2.Ledger>()) { ledger.note = "migrated" }
            try context.save()
        })]
    }
}

/// Opens the store at `url` with version 2's models, by `NotingPlan` when `planned`.
func openVersion2(at url: URL, planned: Bool) throws -> ModelContainer {
    let configuration = ModelConfiguration(url: url)
    if planned {
        return try ModelContainer(for: Schema(versionedSchema: BooksV2.self), migrationPlan: NotingPlan.self, configurations: configuration)
    }
    return try ModelContainer(for: Schema(versionedSchema: BooksV2.self), configurations: configuration)
}

/// Fails the n-th call of any kind while a container opens a version 1 store with version 2's
/// models (a lightweight migration, or a plan with a custom stage that checkpoints and copies the
/// store first), for every n the open makes: each open throws or migrates; then the store opens
/// with version 2, holds the books (every ledger noted, by a plan), and passes the integrity check.
/// With `sticky`, every call from the n-th on fails, as when a disk goes away mid-migration.
func opensMeetingFaults(in folder: URL, planned: Bool, sticky: Bool) throws {
    let source = folder.appendingPathComponent("save-all-false.store")
    let books = try Books.read(at: source)
    var problems: [String] = []
    var failedOpens = 0
    for countdown in 1... {
        let url = folder.appendingPathComponent("open-\(planned ? "plan" : "lightweight")-\(sticky)-\(countdown).store")
        do {
            let copy = ModelContext(try ModelContainer(for: Schema(versionedSchema: BooksV1.self), configurations: ModelConfiguration(url: url)))
            for (code, balance) in books.ledgers {
                let ledger = BooksV1.Ledger(code: code, balance: balance.balance)
                copy.insert(ledger)
                ledger.entries = balance.amounts.map { BooksV1.Entry(amount: $0) }
            }
            try copy.save()
        }
        osd_fault_arm(Int32(OSD_FAULT_ALL), countdown, sticky ? 1 : 0)
        var opened = true
        do {
            _ = try openVersion2(at: url, planned: planned)
        } catch {
            opened = false
            failedOpens += 1
            if !(error is SwiftDataError) { problems.append("call \(countdown): the open threw \(type(of: error)): \(error)") }
        }
        osd_fault_disarm()
        let fired = osd_fault_fired() != 0
        do {
            let context = ModelContext(try openVersion2(at: url, planned: planned))
            let ledgers = try context.fetch(FetchDescriptor<BooksV2.Ledger>())
            let stored = Books(ledgers)
            if stored != books { problems.append("call \(countdown): after the open \(opened ? "succeeded" : "failed"), the store holds \(stored)") }
            if planned, ledgers.contains(where: { $0.note != "migrated" }) {
                problems.append("call \(countdown): after the open \(opened ? "succeeded" : "failed"), a ledger was not migrated by the plan")
            }
        } catch {
            problems.append("call \(countdown): the store no longer opens: \(error)")
        }
        let violations = KillScenario.checkFile(at: url)
        if !violations.isEmpty { problems.append("call \(countdown): \(violations)") }
        if !fired || countdown > 5_000 || problems.count > 5 { break }
    }
    check(problems.isEmpty, "opens migrating a store \(planned ? "by a plan" : "lightweight") while \(sticky ? "every call from one on fails" : "a call fails") (\(failedOpens) failed): each throws or migrates, and the store opens with every row \(problems)")
}

/// Runs every I/O-error check.
func runIOErrorChecks(in folder: URL) throws {
    let installed = osd_fault_vfs_install()
    guard installed == 0 else {
        check(false, "the fault VFS installs (SQLite result \(installed))")
        return
    }
    for (kinds, name) in faultKinds + [(Int32(OSD_FAULT_ALL), "all")] {
        try savesMeetingFaults(in: folder, kinds: kinds, name: name, sticky: false)
    }
    try savesMeetingFaults(in: folder, kinds: Int32(OSD_FAULT_WRITE | OSD_FAULT_SHM), name: "write and shared memory", sticky: true)
    try updatesMeetingFaults(in: folder)
    try fetchesMeetingFaults(in: folder)
    try observersMeetingFaults(in: folder)
    try opensMeetingFaults(in: folder, planned: false, sticky: false)
    try opensMeetingFaults(in: folder, planned: true, sticky: false)
    try opensMeetingFaults(in: folder, planned: true, sticky: true)
}
