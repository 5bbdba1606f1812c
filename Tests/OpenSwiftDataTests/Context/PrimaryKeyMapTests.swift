import Testing
@testable import OpenSwiftData

/// The identity map's hash table against `Dictionary`, over random inserts, lookups and removals.
@Suite struct PrimaryKeyMapTests {
    @Test(arguments: [1, 2, 3])
    func behavesLikeADictionary(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let pool = (0..<64).map { Note(text: "note \($0)") }
        var map = PrimaryKeyMap()
        var reference: [Int64: Note] = [:]
        for step in 0..<20_000 {
            // Dense keys collide in the table's low bits; sparse ones test the hash.
            let key = step % 3 == 0 ? Int64.random(in: -1_000_000...1_000_000, using: &generator) : Int64.random(in: 0..<2_000, using: &generator)
            Self.step(key, setBelow: 5, removeBelow: 8, map: &map, reference: &reference, pool: pool, using: &generator)
        }
        Self.expectSame(map, reference)
    }

    /// One step of a differential run: sets `key` to a note of `pool` (a roll below `setBelow` of
    /// ten), removes it (below `removeBelow`) or reads it, in the map and in `reference` alike.
    private static func step(
        _ key: Int64, setBelow: Int, removeBelow: Int, map: inout PrimaryKeyMap, reference: inout [Int64: Note],
        pool: [Note], using generator: inout SeededGenerator
    ) {
        let roll = Int.random(in: 0..<10, using: &generator)
        if roll < setBelow {
            let note = pool[Int.random(in: 0..<pool.count, using: &generator)]
            map[key] = note
            reference[key] = note
        } else if roll < removeBelow {
            map[key] = nil
            reference[key] = nil
        } else {
            #expect(map[key] as? Note === reference[key])
        }
        #expect(map.count == reference.count)
    }

    /// The map holds what `reference` holds.
    private static func expectSame(_ map: borrowing PrimaryKeyMap, _ reference: [Int64: Note]) {
        for (key, note) in reference { #expect(map[key] as? Note === note) }
        #expect(map.values.count == reference.count)
    }

    /// Keys as stores hand them out (ascending runs with gaps, as rows are inserted and deleted),
    /// mixed with keys below, far above and at the ends of `Int64`'s range, so that keys move
    /// between the map's run and its hash table; checked against `Dictionary` at every step.
    @Test(arguments: [4, 5, 6, 7])
    func behavesLikeADictionaryOverRunsOfKeys(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let pool = (0..<32).map { Note(text: "note \($0)") }
        var map = PrimaryKeyMap()
        var reference: [Int64: Note] = [:]
        var next = Int64.random(in: -5...5_000, using: &generator)
        let extremes: [Int64] = [.min, .min + 1, .max, .max - 1, 0, -1]
        for step in 0..<20_000 {
            let key: Int64
            switch Int.random(in: 0..<20, using: &generator) {
            case 0..<12:
                key = next
                next += Int64.random(in: 1...3, using: &generator)
            case 12..<15: key = next - Int64.random(in: 1...200, using: &generator)
            case 15..<17: key = next + Int64.random(in: 1...100_000, using: &generator)
            case 17: key = extremes[Int.random(in: 0..<extremes.count, using: &generator)]
            default: key = Int64.random(in: .min ... .max, using: &generator)
            }
            if step % 5_000 == 4_999 { map.reserveCapacity(map.count + 1_000) }
            Self.step(key, setBelow: 6, removeBelow: 9, map: &map, reference: &reference, pool: pool, using: &generator)
        }
        Self.expectSame(map, reference)
        // Emptied and filled again, it starts over.
        for key in reference.keys { map[key] = nil }
        #expect(map.isEmpty && map.values.isEmpty)
        map[.max] = pool[0]
        map[.min] = pool[1]
        #expect(map[.max] as? Note === pool[0] && map[.min] as? Note === pool[1] && map.count == 2)
    }

    /// A fetch's models registered at once next to models registered one by one, in a key order
    /// that is not ascending, are each found once.
    @Test func registersOutOfOrderKeysAllAtOnce() {
        var map = PrimaryKeyMap()
        let early = Note(text: "early")
        map[301] = early
        map[7] = early
        let notes = (0..<2_000).map { Note(text: "note \($0)") }
        // Even positions count down from 2,000, odd ones up from 601.
        let keys: [Int64] = (0..<2_000).map { (position: Int) -> Int64 in
            position % 2 == 0 ? Int64(2_000 - position) : Int64(600 + position)
        }
        map.insertAll(notes, forKeys: keys, of: Note.self)
        #expect(map.count == 2_002)
        #expect(zip(notes, keys).allSatisfy { map[$1] as? Note === $0 })
        #expect(map[301] as? Note === early && map[7] as? Note === early)
        #expect(map[0] == nil && map[3_000] == nil && map[1] == nil)
    }

    @Test func reservingCapacityKeepsEntries() {
        var map = PrimaryKeyMap()
        let note = Note(text: "kept")
        for key in 0..<100 { map[Int64(key)] = note }
        map.reserveCapacity(100_000)
        #expect(map.count == 100)
        #expect((0..<100).allSatisfy { map[Int64($0)] != nil })
        #expect(map[100] == nil)
    }

    /// Models registered all at once (a fetch's) are found, counted, removed and released as
    /// models registered one by one are; a key given twice keeps the later model.
    @Test func registersModelsAllAtOnce() {
        weak var replaced: Note?
        var map = PrimaryKeyMap()
        var notes = (0..<1_000).map { Note(text: "note \($0)") }
        var keys = (0..<1_000).map { Int64($0 * 3) }
        keys[999] = keys[5]   // a store that hands out one key twice
        replaced = notes[5]
        map.insertAll(notes, forKeys: keys, of: Note.self)
        #expect(map.count == 999)
        #expect(map[keys[5]] as? Note === notes[999])
        #expect((0..<999).filter { $0 != 5 }.allSatisfy { map[keys[$0]] as? Note === notes[$0] })
        #expect(map[1] == nil)
        map[keys[3]] = nil
        #expect(map.count == 998 && map[keys[3]] == nil && map[keys[4]] as? Note === notes[4])
        notes.removeAll()
        #expect(replaced == nil)   // the map let go of the model it replaced
        #expect((map[keys[4]] as? Note)?.text == "note 4")   // and holds the others
    }

    @Test func holdsItsModelsAndReleasesThemWhenRemovedReplacedOrGone() {
        weak var removed: Note?
        weak var replaced: Note?
        weak var kept: Note?
        do {
            var map = PrimaryKeyMap()
            do {
                let first = Note(text: "removed")
                let second = Note(text: "replaced")
                let third = Note(text: "kept")
                removed = first
                replaced = second
                kept = third
                map[1] = first
                map[2] = second
                for key in 3..<1_000 { map[Int64(key)] = third }   // grows the table several times
            }
            #expect(removed != nil && replaced != nil && kept != nil)   // the map holds them
            map[1] = nil
            #expect(removed == nil)
            map[2] = Note(text: "other")
            #expect(replaced == nil)
            #expect(kept != nil)
            #expect(map[999] as? Note === kept)
        }
        #expect(kept == nil)
    }
}

