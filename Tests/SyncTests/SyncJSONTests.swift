import Foundation
@testable import OpenSwiftData
import OpenSwiftDataSync
import Testing

/// The protocol's own JSON reader and writer against Foundation's: the same messages both ways,
/// exact to the bit, and hostile input refused with an error, never a crash.
struct SyncJSONTests {
    @Test func messagesWrittenByEitherSideReadTheSameByTheOther() throws {
        var random = SeededRandom(seed: 0x5EED)
        for round in 0..<300 {
            let parts = random.below(2) == 0 ? nil : 2 + random.below(50)
            let push = PushRequest(
                client: random.text(), sequence: random.int64(), changes: (0..<random.below(4)).map { _ in random.change() },
                cursor: random.below(2) == 0 ? nil : random.int64(), part: parts.map { random.below($0) }, parts: parts)
            let ours = try push.jsonData()
            let theirs = try JSONEncoder().encode(push)
            #expect(same(try JSONDecoder().decode(PushRequest.self, from: ours), push), "round \(round): \(String(decoding: ours, as: UTF8.self))")
            #expect(same(try PushRequest(jsonData: theirs), push), "round \(round): \(String(decoding: theirs, as: UTF8.self))")

            let pull = PullResponse(rows: (0..<random.below(4)).map { _ in random.row() }, cursor: random.int64(), upToDate: random.below(2) == 0,
                                    reset: random.below(3) == 0 ? true : nil, trimmedThrough: random.below(2) == 0 ? random.int64() : nil)
            let ourPull = try JSONDecoder().decode(PullResponse.self, from: try pull.jsonData())
            #expect(sameRows(ourPull.rows, pull.rows) && ourPull.trimmedThrough == pull.trimmedThrough)
            let decoded = try PullResponse(jsonData: try JSONEncoder().encode(pull))
            #expect(sameRows(decoded.rows, pull.rows) && decoded.cursor == pull.cursor && decoded.upToDate == pull.upToDate && decoded.reset == pull.reset)
            #expect(decoded.trimmedThrough == pull.trimmedThrough)

            let answer = PushResponse(sequence: random.int64(), corrections: [random.row()], conflicts: [
                SyncConflict(entity: random.text(), id: random.text(), property: random.text(), losing: random.clock(), winning: random.clock()),
            ], refusals: (0..<random.below(3)).map { _ in SyncRefusal(entity: random.text(), id: random.text(), reason: random.text()) })
            let read = try PushResponse(jsonData: try JSONEncoder().encode(answer))
            #expect(sameRows(read.corrections, answer.corrections) && read.conflicts == answer.conflicts && read.sequence == answer.sequence)
            #expect(read.refusals == answer.refusals)
            let written = try JSONDecoder().decode(PushResponse.self, from: try answer.jsonData())
            #expect(written.refusals == answer.refusals && written.conflicts == answer.conflicts && sameRows(written.corrections, answer.corrections))
        }
    }

    @Test func everyValueFormKeepsItsBits() throws {
        let values: [SyncValue] = [
            .value(.real(-0.0)), .value(.real(.pi)), .value(.real(.nan)), .value(.real(-.infinity)), .value(.real(.leastNonzeroMagnitude)),
            .value(.real(.greatestFiniteMagnitude)), .value(.real(1e-7)), .value(.real(123_456_789_012_345_680)),
            .value(.date(Date(timeIntervalSinceReferenceDate: 123_456.789_012_345_6))), .value(.date(Date(timeIntervalSinceReferenceDate: .infinity))),
            .value(.date(Date(timeIntervalSinceReferenceDate: -.infinity))), .value(.integer(.min)), .value(.integer(.max)),
            .value(.text("quote \" backslash \\ slash / newline \n tab \t nul \u{0} bell \u{7} ünïcødé ✈︎ 👩‍👩‍👧")), .value(.json("{\"a\":[1,2]}")),
            .value(.uuid(UUID())), .value(.bytes(Data([0, 1, 2, 255]))), .value(.bytes(Data())), .value(.null),
            .reference("a"), .references([]), .references(["a", "b"]),
        ]
        for value in values {
            let row = SyncRow(entity: "Trip", id: "t", deleted: false, values: ["v": value], clocks: ["v": .zero], version: 1)
            let back = try SyncRow(jsonData: try row.jsonData())
            #expect(sameRows([back], [row]), "\(value)")
        }
    }

    @Test func escapesFromOtherWritersRead() throws {
        let json = #"{"t": 1, "c": 2, "n": "caf\u00e9 \ud83d\ude00 \/ \b\f\n\r\t"}"#
        let clock = try SyncClock(jsonData: Data(json.utf8))
        #expect(clock.client == "café 😀 / \u{8}\u{c}\n\r\t")
        #expect(clock == (try JSONDecoder().decode(SyncClock.self, from: Data(json.utf8))))
    }

    @Test func malformedInputThrowsNamingWhere() throws {
        let cases: [(String, String)] = [
            (#"{"client": "c", "sequence": 1}"#, "lacks changes"),
            (#"{"client": "c", "sequence": "1", "changes": []}"#, "sequence"),
            (#"{"client": "c", "sequence": 1, "changes": [{"entity": "T", "id": "x", "deleted": false, "values": {"a": {"text": "x", "integer": 1}}, "clocks": {}}]}"#, "changes[0].values.a"),
            (#"{"client": "c", "sequence": 1, "changes": [{"entity": "T", "id": "x", "deleted": false, "values": {"a": {"real": 1e999}}, "clocks": {}}]}"#, "finite"),
            (#"{"client": "c", "sequence": 99999999999999999999, "changes": []}"#, "64 bits"),
            (#"{"client": "c\ud800", "sequence": 1, "changes": []}"#, "surrogate"),
            (#"{"client": "c", "sequence": 1, "changes": []} trailing"#, "end of the message"),
            (#"{"client": "c", "sequence": 1, "changes": [}"#, "changes"),
            (#"{"client": "c", "x": "# + String(repeating: "[", count: 10_000), "nesting"),
            (#"{"client": "c", "x": "abc"#, "end of a string"),
        ]
        for (json, expected) in cases {
            do {
                _ = try PushRequest(jsonData: Data(json.utf8))
                Issue.record("read \(json.prefix(80))")
            } catch {
                #expect(error.description.contains(expected), "\(json.prefix(80)): \(error.description.prefix(200))")
            }
        }
        // Not UTF-8.
        #expect(throws: SyncJSONError.self) { try PushRequest(jsonData: Data([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D])) }
    }

    @Test func damagedMessagesThrowOrReadNeverCrash() throws {
        var random = SeededRandom(seed: 42)
        let push = PushRequest(client: "c", sequence: 7, changes: (0..<5).map { _ in random.change() }, cursor: 3)
        let bytes = [UInt8](try push.jsonData())
        var refused = 0
        for _ in 0..<2_000 {
            var damaged = bytes
            for _ in 0..<(1 + random.below(3)) {
                let position = random.below(damaged.count)
                switch random.below(3) {
                case 0: damaged[position] = UInt8(truncatingIfNeeded: random.int64())
                case 1: damaged.remove(at: position)
                default: damaged.insert(Array(#"{}[]",:\0e-"#.utf8)[random.below(11)], at: position)
                }
            }
            do {
                _ = try PushRequest(jsonData: damaged)
            } catch {
                refused += 1
            }
        }
        #expect(refused > 1_000)
    }

    // MARK: Support

    private func same(_ a: PushRequest, _ b: PushRequest) -> Bool {
        a.client == b.client && a.sequence == b.sequence && a.cursor == b.cursor && a.part == b.part && a.parts == b.parts
            && a.changes.count == b.changes.count
            && zip(a.changes, b.changes).allSatisfy { x, y in
                x.entity == y.entity && x.id == y.id && x.deleted == y.deleted && x.clocks == y.clocks && x.isNew == y.isNew && x.insertedIn == y.insertedIn && x.bases == y.bases && sameValues(x.values, y.values)
            }
    }

    private func sameRows(_ a: [SyncRow], _ b: [SyncRow]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { x, y in
            x.entity == y.entity && x.id == y.id && x.deleted == y.deleted && x.clocks == y.clocks && x.version == y.version && sameValues(x.values, y.values)
        }
    }

    /// Equal values, NaN equal to a NaN of the same bits.
    private func sameValues(_ a: [String: SyncValue], _ b: [String: SyncValue]) -> Bool {
        a.count == b.count && a.allSatisfy { key, value in
            guard let other = b[key] else { return false }
            if case .value(.real(let x)) = value, case .value(.real(let y)) = other { return x.bitPattern == y.bitPattern }
            return value == other
        }
    }
}

/// A reproducible generator of messages' parts.
private struct SeededRandom {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }
    mutating func int64() -> Int64 { Int64(bitPattern: next()) }

    mutating func text() -> String {
        let alphabet: [Character] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "é", "✈︎", "😀", "\u{7F}", "\u{2028}"]
        return String((0..<below(12)).map { _ in alphabet[below(alphabet.count)] })
    }

    mutating func clock() -> SyncClock { SyncClock(time: int64(), counter: int64(), client: text()) }

    mutating func value() -> SyncValue {
        switch below(11) {
        case 0: .value(.null)
        case 1: .value(.integer(int64()))
        case 2: .value(.real(Double(bitPattern: next())))
        case 3: .value(.date(Date(timeIntervalSinceReferenceDate: Double(int64() % 10_000_000_000) / 1_000.0)))
        case 4: .value(.text(text()))
        case 5: .value(.json(text()))
        case 6: .value(.uuid(UUID()))
        case 7: .value(.bytes(Data((0..<below(9)).map { _ in UInt8(truncatingIfNeeded: next()) })))
        case 8: .reference(text())
        case 9: .references((0..<below(4)).map { _ in text() })
        default: .value(.real(Double(int64() % 1_000_000) / 7))
        }
    }

    mutating func properties() -> (values: [String: SyncValue], clocks: [String: SyncClock]) {
        var values: [String: SyncValue] = [:]
        var clocks: [String: SyncClock] = [:]
        for _ in 0..<below(6) {
            let name = text()
            values[name] = value()
            clocks[name] = clock()
        }
        return (values, clocks)
    }

    mutating func change() -> SyncChange {
        let (values, clocks) = properties()
        return SyncChange(entity: text(), id: text(), deleted: below(4) == 0, values: values, clocks: clocks,
                          isNew: [nil, true, false][below(3)], insertedIn: below(2) == 0 ? nil : Int64(below(1_000)), bases: below(2) == 0 ? [:] : properties().clocks)
    }

    mutating func row() -> SyncRow {
        let (values, clocks) = properties()
        return SyncRow(entity: text(), id: text(), deleted: below(4) == 0, values: values, clocks: clocks, version: int64())
    }
}
