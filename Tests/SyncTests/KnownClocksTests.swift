import Foundation
import OpenSwiftData
@testable import OpenSwiftDataSync
import Testing

/// The clocks a device keeps of the values it holds read back as they were written, however many
/// properties share a clock, and a property whose clock was not known reads as not known.
struct KnownClocksTests {
    @Test func recordsReadBackEveryPropertysClockAndNoOther() throws {
        let container = try ModelContainer(for: Schema(syncModels), configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let entities = Dictionary(uniqueKeysWithValues: container.replicatedEntities.map { ($0.name, $0) })
        let entity = try #require(entities["Trip"])
        let names = entity.properties.map(entity.name(of:))
        var random = ClockRandom(seed: 0xC10C)
        for round in 0..<300 {
            // A few distinct clocks, shared by the properties in random ways; in some rounds some
            // properties' clocks are not known.
            let choices = (0...random.below(3)).map { _ in random.clock() }
            let everyProperty = random.below(2) == 0
            var clocks: [String: SyncClock] = [:]
            for name in names where everyProperty || random.below(4) > 0 { clocks[name] = choices[random.below(choices.count)] }

            let record = KnownClocks.record(of: "id", KnownClocks.Update(entity: "Trip", clocks: clocks), entities: entities)
            var reader = SyncJSONReader(try #require(record.value))
            let read = try reader.readClocks()
            for name in names {
                #expect(KnownClocks.clock(of: name, in: read) == clocks[name], "round \(round): \(name)")
            }
            #expect(KnownClocks.expanded(read, entity: entity) == clocks, "round \(round)")
        }
        #expect(KnownClocks.record(of: "id", KnownClocks.Update(entity: "Trip", clocks: nil), entities: entities).value == nil)
    }
}

/// Random clocks from a seed.
private struct ClockRandom {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 11
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    mutating func clock() -> SyncClock {
        SyncClock(time: Int64(below(1_000_000)), counter: Int64(below(4)), client: ["a", "b", "c"][below(3)])
    }
}
