import Foundation
import Testing
@testable import OpenSwiftData

/// Thousands of random inserts, deletes, relinks and saves over a seeded graph. After every save
/// the store, read by a fresh context, equals the graph in memory; every inverse matches, in
/// memory and in the store; and no row references a missing row.
struct RandomGraphTests {
    let store = TemporaryStore()

    func container() throws -> ModelContainer { try store.graphContainer() }

    @Test(arguments: TestCounts.seeds(quick: 2, full: 5))
    func randomEditsKeepStoreAndMemoryEqual(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let container = try container()
        let context = ModelContext(container)
        var journeys: [Journey] = []
        var outings: [Outing] = []
        var labels: [Label] = []
        var members: [Member] = []
        var counter = 0
        func name(_ prefix: String) -> String {
            counter += 1
            return "\(prefix)\(counter)"
        }
        func pick<T>(_ models: [T]) -> T? { models.isEmpty ? nil : models[Int.random(in: 0..<models.count, using: &random)] }

        for step in 1...3_000 {
            switch Int.random(in: 0..<16, using: &random) {
            case 0:
                let journey = Journey(name: name("j"))
                context.insert(journey)
                journeys.append(journey)
            case 1:
                let outing = Outing(title: name("o"), journey: pick(journeys))
                context.insert(outing)
                outings.append(outing)
            case 2:
                let label = Label(name: name("l"))
                context.insert(label)
                labels.append(label)
            case 3:
                let member = Member(name: name("m"))
                context.insert(member)
                members.append(member)
            case 4:
                if let journey = pick(journeys) { context.delete(journey) }
            case 5:
                if let outing = pick(outings) { context.delete(outing) }
            case 6:
                if let label = pick(labels) { context.delete(label) }
            case 7, 8:
                if let outing = pick(outings) { outing.journey = Bool.random(using: &random) ? pick(journeys) : nil }
            case 9:
                if let journey = pick(journeys), let outing = pick(outings) { journey.outings.append(outing) }
            case 10:
                if let outing = pick(outings), let label = pick(labels) {
                    if outing.labels.contains(where: { $0 === label }) {
                        outing.labels.removeAll { $0 === label }
                    } else {
                        outing.labels.append(label)
                    }
                }
            case 11:
                if let label = pick(labels), let outing = pick(outings) { label.outings.append(outing) }
            case 12:
                if let journey = pick(journeys) {
                    journey.lodging = Bool.random(using: &random) ? Lodging(name: name("h")) : nil
                }
            case 13:
                if let follower = pick(members), let followed = pick(members), follower !== followed {
                    if follower.following.contains(where: { $0 === followed }) {
                        followed.followers.removeAll { $0 === follower }
                    } else {
                        follower.following.append(followed)
                    }
                }
            case 14:
                if let member = pick(members) { context.delete(member) }
            default:
                if let journey = pick(journeys), !journey.outings.isEmpty {
                    journey.outings.removeLast()
                }
            }
            if step % 40 == 0 {
                try context.save()
                journeys.removeAll { $0.modelContext == nil }
                outings.removeAll { $0.modelContext == nil }
                labels.removeAll { $0.modelContext == nil }
                members.removeAll { $0.modelContext == nil }
                try verify(journeys: journeys, outings: outings, labels: labels, members: members, container: container)
            }
        }
        #expect(journeys.count + outings.count + labels.count + members.count > 50, "the graph grew")
    }

    /// The graph as names: each model's name with the names of what it relates to.
    private struct Snapshot: Equatable {
        var journeys: [String: [String]] = [:]
        var lodgings: [String: String] = [:]
        var outings: [String: String] = [:]
        var outingLabels: [String: Set<String>] = [:]
        var labels: [String: Set<String>] = [:]
        var following: [String: Set<String>] = [:]
        var followers: [String: Set<String>] = [:]

        init(journeys: [Journey], outings: [Outing], labels: [Label], members: [Member]) {
            for journey in journeys {
                self.journeys[journey.name] = journey.outings.map(\.title).sorted()
                lodgings[journey.name] = journey.lodging?.name ?? "-"
                for outing in journey.outings { #expect(outing.journey === journey, "inverse of \(journey.name).outings") }
                if let lodging = journey.lodging { #expect(lodging.journey === journey, "inverse of \(journey.name).lodging") }
            }
            for outing in outings {
                self.outings[outing.title] = outing.journey?.name ?? "-"
                outingLabels[outing.title] = Set(outing.labels.map(\.name))
                if let journey = outing.journey { #expect(journey.outings.contains { $0 === outing }, "inverse of \(outing.title).journey") }
                for label in outing.labels { #expect(label.outings.contains { $0 === outing }, "inverse of \(outing.title).labels") }
                #expect(Set(outing.labels.map(ObjectIdentifier.init)).count == outing.labels.count, "no duplicates")
            }
            for label in labels {
                self.labels[label.name] = Set(label.outings.map(\.title))
                for outing in label.outings { #expect(outing.labels.contains { $0 === label }, "inverse of \(label.name).outings") }
            }
            for member in members {
                following[member.name] = Set(member.following.map(\.name))
                followers[member.name] = Set(member.followers.map(\.name))
                for other in member.following { #expect(other.followers.contains { $0 === member }, "inverse of \(member.name).following") }
            }
        }
    }

    private func verify(journeys: [Journey], outings: [Outing], labels: [Label], members: [Member], container: ModelContainer) throws {
        let memory = Snapshot(journeys: journeys, outings: outings, labels: labels, members: members)
        let fresh = ModelContext(container)
        let stored = Snapshot(
            journeys: try fresh.fetch(FetchDescriptor<Journey>()), outings: try fresh.fetch(FetchDescriptor<Outing>()),
            labels: try fresh.fetch(FetchDescriptor<Label>()), members: try fresh.fetch(FetchDescriptor<Member>()))
        #expect(stored == memory)
        // No row references a missing row.
        let orphans = [
            "SELECT count(*) FROM Outing WHERE journey IS NOT NULL AND journey NOT IN (SELECT _pk FROM Journey)",
            "SELECT count(*) FROM Journey WHERE lodging IS NOT NULL AND lodging NOT IN (SELECT _pk FROM Lodging)",
            "SELECT count(*) FROM osd_link_Label_outings WHERE owner NOT IN (SELECT _pk FROM Label) OR target NOT IN (SELECT _pk FROM Outing)",
            "SELECT count(*) FROM osd_link_Member_followers WHERE owner NOT IN (SELECT _pk FROM Member) OR target NOT IN (SELECT _pk FROM Member)",
        ]
        // (The PostgreSQL run compares the stored graph with memory above; these queries read SQLite.)
        for sql in orphans where TemporaryStore.defaultBackend == .sqlite {
            let count = try container.sqliteStore().withReader { try $0.integer(sql) }
            #expect(count == 0, "\(sql)")
        }
    }
}
