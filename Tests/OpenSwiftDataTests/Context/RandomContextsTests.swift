import Foundation
import Testing
@testable import OpenSwiftData

/// A counter with a unique tag: inserting a tag the store holds updates that row (an upsert).
@Model final class TaggedCounter {
    #Unique<TaggedCounter>([\.tag])
    var tag: Int
    var count: Int
    var note: String?

    init(tag: Int, count: Int, note: String?) {
        self.tag = tag
        self.count = count
        self.note = note
    }
}

/// Random inserts, upserts, changes, deletions, saves and rollbacks in three contexts on one store
/// (two of one container, one of a second container, as another process would open it), checked
/// against a model of what SwiftData promises: a save writes the properties its context changed
/// (per property, the last save wins), an insert of a stored tag replaces that row's values, a
/// deletion ends every later change to the row, and each context sees the store plus its own
/// unsaved changes. Updates by predicate (an addition) change the stored rows their predicate
/// selects among the stored values, as a save of their own.
struct RandomContextsTests {
    let store = TemporaryStore()

    /// A counter's values.
    struct Values: Equatable, CustomStringConvertible {
        var count: Int
        var note: String?
        var description: String { "(\(count), \(note ?? "nil"))" }
    }

    /// The unsaved work of one context.
    struct Pending {
        /// New counters by tag.
        var inserted: [Int: Values] = [:]
        /// Changed properties of stored counters by tag (`note` doubly optional: changed to `nil`).
        var changed: [Int: (count: Int?, note: String??)] = [:]
        /// Stored counters deleted.
        var deleted: Set<Int> = []

        /// Whether the context has unsaved work on `tag`.
        func touches(_ tag: Int) -> Bool { inserted[tag] != nil || changed[tag] != nil || deleted.contains(tag) }
    }

    /// What the store holds and what each context has not saved yet.
    struct Expectation {
        var stored: [Int: Values] = [:]
        var pending: [Pending]

        init(contexts: Int) { pending = Array(repeating: Pending(), count: contexts) }

        /// Context `index` saved: its work reaches the store, and other contexts' changes to the
        /// counters it deleted are gone with them.
        mutating func saved(_ index: Int) {
            let work = pending[index]
            for (tag, values) in work.inserted { stored[tag] = values }
            for (tag, change) in work.changed where stored[tag] != nil {
                if let count = change.count { stored[tag]?.count = count }
                if let note = change.note { stored[tag]?.note = note }
            }
            for tag in work.deleted { stored[tag] = nil }
            pending[index] = Pending()
            for other in pending.indices {
                pending[other].changed = pending[other].changed.filter { stored[$0.key] != nil }
                pending[other].deleted = pending[other].deleted.filter { stored[$0] != nil }
            }
        }

        /// What context `index` fetches: the store with its own unsaved work applied.
        func view(of index: Int) -> [Int: Values] {
            let work = pending[index]
            var view = stored
            for tag in work.deleted { view[tag] = nil }
            for (tag, change) in work.changed where view[tag] != nil {
                if let count = change.count { view[tag]?.count = count }
                if let note = change.note { view[tag]?.note = note }
            }
            view.merge(work.inserted) { _, new in new }
            return view
        }
    }

    @Test(arguments: [Backend.sqlite, .postgres].filter(Backend.allCases.contains), [UInt64(1), 2, 3, 4])
    func contextsSeeTheStoreAndTheirOwnChanges(backend: Backend, seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let container = try store.container(TaggedCounter.self, backend: backend)
        let otherProcess = try store.container(TaggedCounter.self, backend: backend)
        let contexts = [ModelContext(container), ModelContext(container), ModelContext(otherProcess)]
        var expected = Expectation(contexts: contexts.count)
        var nextTag = 1

        /// The counters context `index` fetches by tag; of a stored counter and a new one with the
        /// same tag (an upsert not saved yet), the new one.
        func fetched(_ index: Int) throws -> [Int: TaggedCounter] {
            let context = contexts[index]
            let inserted = Set(context.insertedModelsArray.map(ObjectIdentifier.init))
            var counters: [Int: TaggedCounter] = [:]
            for counter in try context.fetch(FetchDescriptor<TaggedCounter>()) {
                if let earlier = counters[counter.tag] {
                    #expect(expected.pending[index].inserted[counter.tag] != nil, "tag \(counter.tag) fetched twice")
                    if inserted.contains(ObjectIdentifier(earlier)) { continue }
                }
                counters[counter.tag] = counter
            }
            return counters
        }

        for step in 0..<500 {
            let index = Int.random(in: 0..<contexts.count, using: &random)
            let context = contexts[index]
            switch Int.random(in: 0..<11, using: &random) {
            case 0, 1:
                // A new tag, or (an upsert) a stored one this context has no work on.
                let reusable = expected.stored.keys.sorted().filter { !expected.pending[index].touches($0) }
                let tag: Int
                if Int.random(in: 0..<3, using: &random) == 0, let stored = reusable.randomElement(using: &random) {
                    tag = stored
                } else {
                    tag = nextTag
                    nextTag += 1
                }
                let values = Values(count: Int.random(in: 0..<100, using: &random), note: Bool.random(using: &random) ? "n\(step)" : nil)
                context.insert(TaggedCounter(tag: tag, count: values.count, note: values.note))
                expected.pending[index].inserted[tag] = values
            case 2, 3, 4:
                let counters = try fetched(index)
                guard let tag = counters.keys.sorted().randomElement(using: &random), let counter = counters[tag] else { continue }
                let isNew = expected.pending[index].inserted[tag] != nil
                if Bool.random(using: &random) {
                    let count = Int.random(in: 0..<100, using: &random)
                    counter.count = count
                    if isNew { expected.pending[index].inserted[tag]?.count = count } else { expected.pending[index].changed[tag, default: (nil, nil)].count = count }
                } else {
                    let note: String? = Bool.random(using: &random) ? "s\(step)" : nil
                    counter.note = note
                    if isNew { expected.pending[index].inserted[tag]?.note = note } else { expected.pending[index].changed[tag, default: (nil, nil)].note = .some(note) }
                }
            case 5:
                let counters = try fetched(index)
                guard let tag = counters.keys.sorted().randomElement(using: &random), let counter = counters[tag] else { continue }
                context.delete(counter)
                if expected.pending[index].inserted[tag] != nil {
                    expected.pending[index].inserted[tag] = nil
                } else {
                    expected.pending[index].changed[tag] = nil
                    expected.pending[index].deleted.insert(tag)
                }
            case 6, 7:
                try context.save()
                expected.saved(index)
            case 8:
                context.rollback()
                expected.pending[index] = Pending()
            case 9:
                // An update by predicate: a save of its own, of the stored values alone.
                let limit = Int.random(in: 0..<100, using: &random)
                let selected = expected.stored.keys.filter { (expected.stored[$0]?.count ?? 0) < limit }
                let updated: Int
                if Bool.random(using: &random) {
                    let count = Int.random(in: 0..<100, using: &random)
                    updated = try context.update(model: TaggedCounter.self, where: #Predicate { $0.count < limit }, set: \.count, to: count)
                    for tag in selected { expected.stored[tag]?.count = count }
                } else {
                    let note: String? = Bool.random(using: &random) ? "u\(step)" : nil
                    updated = try context.update(model: TaggedCounter.self, where: #Predicate { $0.count < limit }, set: \.note, to: note)
                    for tag in selected { expected.stored[tag]?.note = note }
                }
                #expect(updated == selected.count, "step \(step), context \(index): update where count < \(limit)")
            default:
                let seen = try fetched(index).mapValues { Values(count: $0.count, note: $0.note) }
                let view = expected.view(of: index)
                let differing = Set(seen.keys).union(view.keys).filter { seen[$0] != view[$0] }.sorted()
                let report = differing.prefix(5).map {
                    "tag \($0) reads \(seen[$0].map(String.init(describing:)) ?? "nothing"), expected \(view[$0].map(String.init(describing:)) ?? "nothing")"
                }
                try #require(differing.isEmpty, "step \(step), context \(index): \(report.joined(separator: "; "))")
            }
        }
        let reopened = ModelContext(try store.container(TaggedCounter.self, backend: backend))
        let rows = try reopened.fetch(FetchDescriptor<TaggedCounter>()).map { ($0.tag, Values(count: $0.count, note: $0.note)) }
        #expect(rows.count == expected.stored.count)
        #expect(Dictionary(rows, uniquingKeysWith: { first, _ in first }) == expected.stored)
    }
}
