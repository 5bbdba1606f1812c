import Foundation
import Testing
@testable import OpenSwiftData

/// Random groups of inserts, deletes, relinks, attribute changes and deletions by predicate, with
/// saves between them, undone one group at a time and then redone: after each step the graph the
/// context shows equals the one recorded at that point going forward, and after each save the
/// store, read by a fresh context, equals the graph in memory.
struct RandomUndoTests {
    let store = TemporaryStore()

    @Test(arguments: TestCounts.seeds(quick: 4, full: 10))
    func undoingEveryGroupThenRedoingItRetracesTheGraph(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let container = try store.graphContainer()
        let context = ModelContext(container)
        let manager = UndoManager()
        context.undoManager = manager
        var counter = 0
        func name(_ prefix: String) -> String {
            counter += 1
            return "\(prefix)\(counter)"
        }
        func pick<T: PersistentModel>(_ type: T.Type) throws -> T? {
            let models = try context.fetch(FetchDescriptor<T>())
            return models.isEmpty ? nil : models[Int.random(in: 0..<models.count, using: &random)]
        }
        var log: [String] = []
        var phase = ""
        func edit() throws {
            switch Int.random(in: 0..<19, using: &random) {
            case 0:
                let journey = Journey(name: name("j"))
                context.insert(journey)
                log.append("insert \(journey.name)")
            case 1:
                let outing = Outing(title: name("o"), cost: Int.random(in: 0..<10, using: &random), journey: try pick(Journey.self))
                context.insert(outing)
                log.append("insert \(outing.title) in \(outing.journey?.name ?? "-")")
            case 2:
                let label = Label(name: name("l"))
                context.insert(label)
                log.append("insert \(label.name)")
            case 3:
                let member = Member(name: name("m"))
                context.insert(member)
                log.append("insert \(member.name)")
            case 4:
                if let journey = try pick(Journey.self) {
                    context.delete(journey)
                    log.append("delete \(journey.name)")
                }
            case 5:
                if let outing = try pick(Outing.self) {
                    context.delete(outing)
                    log.append("delete \(outing.title)")
                }
            case 6:
                if let label = try pick(Label.self) {
                    context.delete(label)
                    log.append("delete \(label.name)")
                }
            case 7:
                if let outing = try pick(Outing.self) {
                    outing.journey = Bool.random(using: &random) ? try pick(Journey.self) : nil
                    log.append("\(outing.title).journey = \(outing.journey?.name ?? "nil")")
                }
            case 8:
                if let journey = try pick(Journey.self), let outing = try pick(Outing.self) {
                    journey.outings.append(outing)
                    log.append("\(journey.name).outings.append(\(outing.title))")
                }
            case 9:
                if let outing = try pick(Outing.self), let label = try pick(Label.self) {
                    if outing.labels.contains(where: { $0 === label }) { outing.labels.removeAll { $0 === label } } else { outing.labels.append(label) }
                    log.append("toggle \(outing.title).labels \(label.name)")
                }
            case 10:
                if let journey = try pick(Journey.self) {
                    journey.lodging = Bool.random(using: &random) ? Lodging(name: name("h")) : nil
                    log.append("\(journey.name).lodging = \(journey.lodging?.name ?? "nil")")
                }
            case 11:
                if let follower = try pick(Member.self), let followed = try pick(Member.self), follower !== followed {
                    follower.following.append(followed)
                    log.append("\(follower.name) follows \(followed.name)")
                }
            case 12:
                if let outing = try pick(Outing.self) {
                    outing.cost = Int.random(in: 0..<10, using: &random)
                    log.append("\(outing.title).cost = \(outing.cost)")
                }
            case 13:
                if let journey = try pick(Journey.self) {
                    journey.startDate = Date(timeIntervalSinceReferenceDate: Double(counter))
                    log.append("\(journey.name).startDate")
                }
            case 15:
                let memo = Memo(text: name("n"))
                context.insert(memo)
                log.append("insert \(memo.text)")
            case 16:
                let attachment = Attachment(fileName: name("a"))
                context.insert(attachment)
                log.append("insert \(attachment.fileName)")
            case 17:
                if let memo = try pick(Memo.self), let attachment = try pick(Attachment.self) {
                    if Bool.random(using: &random) {
                        memo.pinned = attachment
                        log.append("\(memo.text).pinned = \(attachment.fileName)")
                    } else if memo.attachments.count < 3, !memo.attachments.contains(where: { $0 === attachment }) {
                        memo.attachments.append(attachment)
                        log.append("\(memo.text).attachments.append(\(attachment.fileName))")
                    }
                }
            case 18:
                if let attachment = try pick(Attachment.self) {
                    context.delete(attachment)
                    log.append("delete \(attachment.fileName)")
                }
            default:
                let limit = Int.random(in: 0..<10, using: &random)
                try context.delete(model: Outing.self, where: #Predicate { $0.cost > limit })
                log.append("delete outings costing more than \(limit)")
            }
        }
        func maybeSave() throws {
            guard Int.random(in: 0..<4, using: &random) == 0 else { return }
            try context.save()
            log.append("save")
            let stored = try GraphSnapshot(ModelContext(container))
            let memory = try GraphSnapshot(context)
            #expect(stored == memory, "the store equals memory after a save (\(phase)): \(stored.differences(from: memory)) log \(log)")
        }

        // Every group changes the sentinel, so that each registers something and is one undo.
        let sentinel = Member(name: "sentinel")
        context.insert(sentinel)
        manager.removeAllActions()
        var states = [try GraphSnapshot(context)]
        var edits: [[String]] = [[]]
        let groups = 80
        for group in 1...groups {
            log = []
            phase = "do \(group)"
            manager.beginUndoGrouping()
            sentinel.name = "sentinel \(group)"
            for _ in 0..<Int.random(in: 1...5, using: &random) { try edit() }
            manager.endUndoGrouping()
            states.append(try GraphSnapshot(context))
            #expect(manager.groupingLevel == 0, "reading the graph registered nothing: \(log)")
            try maybeSave()
            edits.append(log)
        }
        #expect(states.last != states.first, "the edits changed the graph")
        for step in stride(from: groups, to: 0, by: -1) {
            phase = "undo \(step) \(edits[step])"
            manager.undo()
            #expect(manager.groupingLevel == 0, "undo of group \(step) closed its group")
            let now = try GraphSnapshot(context)
            #expect(manager.groupingLevel == 0, "reading the graph after undo of group \(step) registered nothing")
            #expect(now == states[step - 1], "undo of group \(step) (edits \(edits[step])): \(now.differences(from: states[step - 1]))")
            guard now == states[step - 1] else { return }
            try maybeSave()
        }
        #expect(!manager.canUndo)
        for step in 1...groups {
            phase = "redo \(step) \(edits[step])"
            manager.redo()
            let now = try GraphSnapshot(context)
            #expect(now == states[step], "redo of group \(step) (edits \(edits[step])): \(now.differences(from: states[step]))")
            guard now == states[step] else { return }
            try maybeSave()
        }
        try context.save()
        #expect(try GraphSnapshot(ModelContext(container)) == states[groups])
    }
}

/// The graph a context shows (its pending changes included), as names: each model's attributes
/// and the names of the models it relates to. Every inverse is checked on the way.
struct GraphSnapshot: Equatable {
    var journeys: [String: String] = [:]
    var outings: [String: String] = [:]
    var labels: [String: Set<String>] = [:]
    var lodgings: [String: String] = [:]
    var following: [String: Set<String>] = [:]
    var memos: [String: String] = [:]

    init(_ context: ModelContext) throws {
        for journey in try context.fetch(FetchDescriptor<Journey>()) {
            // (With an undo manager, a deleted model leaves the relationships that hold it at
            // once; the filters below would hide one that stayed, and the checks of the inverses
            // would still find it.)
            journeys[journey.name] = "\(journey.startDate.timeIntervalSinceReferenceDate) \(journey.outings.filter { !$0.isDeleted }.map(\.title).sorted()) \(journey.lodging.map { $0.isDeleted ? "-" : $0.name } ?? "-")"
            for outing in journey.outings { #expect(outing.journey === journey, "inverse of \(journey.name).outings") }
            if let lodging = journey.lodging { #expect(lodging.journey === journey, "inverse of \(journey.name).lodging") }
        }
        for outing in try context.fetch(FetchDescriptor<Outing>()) {
            outings[outing.title] = "\(outing.cost) \(outing.journey.map { $0.isDeleted ? "-" : $0.name } ?? "-") \(outing.labels.filter { !$0.isDeleted }.map(\.name).sorted())"
            if let journey = outing.journey { #expect(journey.outings.contains { $0 === outing }, "inverse of \(outing.title).journey") }
            for label in outing.labels { #expect(label.outings.contains { $0 === outing }, "inverse of \(outing.title).labels") }
        }
        for label in try context.fetch(FetchDescriptor<Label>()) {
            labels[label.name] = Set(label.outings.filter { !$0.isDeleted }.map(\.title))
        }
        for lodging in try context.fetch(FetchDescriptor<Lodging>()) {
            lodgings[lodging.name] = lodging.journey.map { $0.isDeleted ? "-" : $0.name } ?? "-"
        }
        for member in try context.fetch(FetchDescriptor<Member>()) {
            following[member.name] = Set(member.following.filter { !$0.isDeleted }.map(\.name))
            for other in member.following { #expect(other.followers.contains { $0 === member }, "inverse of \(member.name).following") }
        }
        // One-way relationships: a deleted attachment stays until the save, then is let go.
        let attachments = Set(try context.fetch(FetchDescriptor<Attachment>()).map(ObjectIdentifier.init))
        for memo in try context.fetch(FetchDescriptor<Memo>()) {
            let held = memo.attachments.filter { attachments.contains(ObjectIdentifier($0)) }.map(\.fileName).sorted()
            let pinned = memo.pinned.map { attachments.contains(ObjectIdentifier($0)) ? $0.fileName : "-" } ?? "-"
            memos[memo.text] = "\(held) \(pinned)"
        }
    }

    /// What differs from `expected`, model by model.
    func differences(from expected: GraphSnapshot) -> String {
        func compare<V: Equatable>(_ name: String, _ actual: [String: V], _ expected: [String: V]) -> [String] {
            Set(actual.keys).union(expected.keys).sorted().compactMap { key in
                actual[key] == expected[key] ? nil : "\(name) \(key): \(actual[key].map { "\($0)" } ?? "missing") instead of \(expected[key].map { "\($0)" } ?? "missing")"
            }
        }
        return (compare("journey", journeys, expected.journeys) + compare("outing", outings, expected.outings)
            + compare("label", labels, expected.labels) + compare("lodging", lodgings, expected.lodgings)
            + compare("member", following, expected.following) + compare("memo", memos, expected.memos)).joined(separator: "; ")
    }
}
