import Foundation
import Testing
@testable import OpenSwiftData

@Model final class RHTrip {
    var name: String
    @Attribute(.preserveValueOnDeletion) var code: String
    var rating: Int
    @Relationship(deleteRule: .cascade, inverse: \RHVisit.trip) var visits: [RHVisit] = []
    @Relationship(deleteRule: .nullify, inverse: \RHNote.trip) var notes: [RHNote] = []
    init(name: String, code: String, rating: Int) {
        self.name = name
        self.code = code
        self.rating = rating
    }
}

@Model final class RHVisit {
    var title: String
    var trip: RHTrip?
    init(title: String, trip: RHTrip?) {
        self.title = title
        self.trip = trip
    }
}

@Model final class RHNote {
    @Attribute(.preserveValueOnDeletion) var text: String
    var trip: RHTrip?
    init(text: String, trip: RHTrip?) {
        self.text = text
        self.trip = trip
    }
}

@Model final class RHTag {
    #Unique<RHTag>([\.key])
    var key: Int
    var label: String
    init(key: Int, label: String) {
        self.key = key
        self.label = label
    }
}

/// Random saves from several contexts of two containers on one store (another process's path),
/// each checked against the store itself: the history since the last token explains exactly how
/// the store changed. Every row that appeared is an insertion, every row that went a deletion
/// (with the values it had, where preserved), every stored value that changed is named by an
/// update of its model (a property set to the value it had may be listed too); a rolled-back
/// change records nothing.
/// At the end, replaying the whole history from an empty store gives the store's rows.
struct RandomHistoryTests {
    let store = TemporaryStore()

    /// A row as the test compares it: its stored values (relationships by the key they point to).
    typealias Rows = [PersistentIdentifier: [String: String]]

    static var attributes: [String: [(name: String, keyPath: AnyKeyPath)]] { [
        "RHTrip": [("name", \RHTrip.name), ("code", \RHTrip.code), ("rating", \RHTrip.rating)],
        "RHVisit": [("title", \RHVisit.title), ("trip", \RHVisit.trip)],
        "RHNote": [("text", \RHNote.text), ("trip", \RHNote.trip)],
        "RHTag": [("key", \RHTag.key), ("label", \RHTag.label)],
    ] }

    func container() throws -> ModelContainer {
        try store.container(RHTrip.self, RHVisit.self, RHNote.self, RHTag.self)
    }

    /// Every row of the store, read by a context of a container opened for the purpose.
    func rows() throws -> Rows {
        let context = ModelContext(try container())
        var rows: Rows = [:]
        func key(_ model: (any PersistentModel)?) -> String { model.map { "\($0.persistentModelID)" } ?? "-" }
        for trip in try context.fetch(FetchDescriptor<RHTrip>()) {
            rows[trip.persistentModelID] = ["name": trip.name, "code": trip.code, "rating": "\(trip.rating)"]
        }
        for visit in try context.fetch(FetchDescriptor<RHVisit>()) {
            rows[visit.persistentModelID] = ["title": visit.title, "trip": key(visit.trip)]
        }
        for note in try context.fetch(FetchDescriptor<RHNote>()) {
            rows[note.persistentModelID] = ["text": note.text, "trip": key(note.trip)]
        }
        for tag in try context.fetch(FetchDescriptor<RHTag>()) {
            rows[tag.persistentModelID] = ["key": "\(tag.key)", "label": tag.label]
        }
        let keys = Set(rows.keys.map { "\($0)" })
        for (id, values) in rows {
            if let trip = values["trip"], trip != "-" {
                #expect(keys.contains(trip), "\(id) refers to \(trip), which is not in the store")
            }
        }
        return rows
    }

    /// The names of the attributes an update lists.
    func names<Update: HistoryUpdate>(of update: Update) -> Set<String> {
        let listed = update.updatedAttributes.map { $0 as AnyKeyPath }
        let known = Self.attributes[update.changedPersistentIdentifier.entityName] ?? []
        return Set(known.filter { listed.contains($0.keyPath) }.map(\.name))
    }

    /// The value a deletion's tombstone preserved for `name`, as the test's rows spell it.
    func preserved(_ deletion: any HistoryDelete, _ name: String) -> String? {
        switch deletion {
        case let trip as DefaultHistoryDelete<RHTrip> where name == "code": trip.tombstone[\RHTrip.code] as? String
        case let note as DefaultHistoryDelete<RHNote> where name == "text": note.tombstone[\RHNote.text] as? String
        default: nil
        }
    }

    @Test(arguments: TestCounts.seeds(quick: 3, full: 6))
    func theHistorySinceEachSaveExplainsHowTheStoreChanged(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let containers = [try container(), try container()]
        let contexts = [ModelContext(containers[0]), ModelContext(containers[0]), ModelContext(containers[1])]
        for (index, context) in contexts.enumerated() { context.author = "author\(index)" }
        let reader = ModelContext(containers[0])
        var counter = 0
        func next() -> Int {
            counter += 1
            return counter
        }
        var before: Rows = [:]
        var token: DefaultHistoryToken?
        var log: [String] = []

        for step in 0..<60 {
            let which = Int.random(in: 0..<contexts.count, using: &random)
            let context = contexts[which]
            func pick<T: PersistentModel>(_ type: T.Type) throws -> T? {
                try context.fetch(FetchDescriptor<T>()).randomElement(using: &random)
            }
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                switch Int.random(in: 0..<14, using: &random) {
                case 0, 1:
                    let trip = RHTrip(name: "t\(next())", code: "c\(next())", rating: Int.random(in: 0..<5, using: &random))
                    context.insert(trip)
                    log.append("\(step): insert trip \(trip.name)")
                case 2:
                    let visit = RHVisit(title: "v\(next())", trip: try pick(RHTrip.self))
                    context.insert(visit)
                    log.append("\(step): insert visit \(visit.title)")
                case 3:
                    let note = RHNote(text: "n\(next())", trip: try pick(RHTrip.self))
                    context.insert(note)
                    log.append("\(step): insert note \(note.text)")
                case 4:
                    let tag = RHTag(key: Int.random(in: 0..<6, using: &random), label: "l\(next())")
                    context.insert(tag)
                    log.append("\(step): insert tag \(tag.key) \(tag.label)")
                case 5:
                    if let trip = try pick(RHTrip.self) {
                        trip.rating = Int.random(in: 0..<5, using: &random)
                        log.append("\(step): rate \(trip.name) \(trip.rating)")
                    }
                case 6:
                    if let trip = try pick(RHTrip.self) {
                        trip.code = "c\(next())"
                        log.append("\(step): recode \(trip.name)")
                    }
                case 7:
                    if let visit = try pick(RHVisit.self) {
                        visit.trip = try pick(RHTrip.self)
                        log.append("\(step): move \(visit.title) to \(visit.trip?.name ?? "-")")
                    }
                case 8:
                    if let note = try pick(RHNote.self), let trip = try pick(RHTrip.self) {
                        trip.notes.append(note)
                        log.append("\(step): file \(note.text) under \(trip.name)")
                    }
                case 9:
                    if let trip = try pick(RHTrip.self) {
                        context.delete(trip)
                        log.append("\(step): delete \(trip.name)")
                    }
                case 10:
                    if let visit = try pick(RHVisit.self) {
                        context.delete(visit)
                        log.append("\(step): delete \(visit.title)")
                    }
                case 11:
                    let rating = Int.random(in: 0..<5, using: &random)
                    try context.delete(model: RHTrip.self, where: #Predicate { $0.rating == rating })
                    log.append("\(step): delete trips rated \(rating)")
                case 12:
                    if let note = try pick(RHNote.self) {
                        note.text = "n\(next())"
                        log.append("\(step): rewrite \(note.text)")
                    }
                default:
                    if let tag = try pick(RHTag.self) {
                        tag.label = "l\(next())"
                        log.append("\(step): relabel \(tag.key) \(tag.label)")
                    }
                }
            }
            let rollsBack = Int.random(in: 0..<6, using: &random) == 0
            if rollsBack {
                context.rollback()
                log.append("\(step): rollback in \(which)")
            } else {
                try context.save()
                log.append("\(step): save in \(which)")
            }

            let after = try rows()
            let descriptor = token.map { token in
                HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token })
            } ?? HistoryDescriptor<DefaultHistoryTransaction>()
            let transactions = try reader.fetchHistory(descriptor)
            let context_ = "seed \(seed), step \(step):\n" + log.suffix(12).joined(separator: "\n")
            #expect(transactions.count <= 1, "one save, one transaction: \(context_)")
            if rollsBack {
                #expect(transactions.isEmpty, "a rolled-back change is not recorded: \(context_)")
            } else if after != before {
                #expect(transactions.count == 1, "a save that changed the store is recorded: \(context_)")
            }
            if let transaction = transactions.last {
                #expect(transaction.author == "author\(which)", "\(context_)")
                token = transaction.token
            }
            let changes = transactions.flatMap(\.changes)
            var inserted = Set<PersistentIdentifier>()
            var deleted = Set<PersistentIdentifier>()
            var updated: [PersistentIdentifier: Set<String>] = [:]
            for change in changes {
                switch change {
                case .insert(let insert): inserted.insert(insert.changedPersistentIdentifier)
                case .update(let update): updated[update.changedPersistentIdentifier, default: []].formUnion(names(of: update))
                case .delete(let deletion):
                    let id = deletion.changedPersistentIdentifier
                    deleted.insert(id)
                    for name in ["code", "text"] {
                        if let value = preserved(deletion, name) {
                            #expect(value == before[id]?[name], "tombstone of \(id).\(name): \(context_)")
                        }
                    }
                }
            }
            let appeared = Set(after.keys).subtracting(before.keys)
            let went = Set(before.keys).subtracting(after.keys)
            #expect(inserted == appeared, "insertions \(inserted.subtracting(appeared)) extra, \(appeared.subtracting(inserted)) missing: \(context_)")
            #expect(deleted == went, "deletions \(deleted.subtracting(went)) extra, \(went.subtracting(deleted)) missing: \(context_)")
            for (id, values) in after {
                guard let old = before[id] else { continue }
                let changed = Set(values.keys.filter { values[$0] != old[$0] })
                let listed = updated[id] ?? []
                #expect(changed.isSubset(of: listed), "\(id) changed \(changed), the history lists \(listed): \(context_)")
            }
            for id in updated.keys {
                #expect(after[id] != nil && before[id] != nil, "an update of \(id), which is not a surviving row: \(context_)")
            }
            before = after
        }

        // Replaying the whole history from an empty store gives the store's rows.
        var replayed = Set<PersistentIdentifier>()
        for transaction in try ModelContext(try container()).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()) {
            for change in transaction.changes {
                switch change {
                case .insert(let insert):
                    #expect(replayed.insert(insert.changedPersistentIdentifier).inserted, "inserted twice: \(insert.changedPersistentIdentifier)")
                case .update(let update):
                    #expect(replayed.contains(update.changedPersistentIdentifier), "updated while absent: \(update.changedPersistentIdentifier)")
                case .delete(let deletion):
                    #expect(replayed.remove(deletion.changedPersistentIdentifier) != nil, "deleted while absent: \(deletion.changedPersistentIdentifier)")
                }
            }
        }
        #expect(replayed == Set(before.keys))
    }
}
