import Foundation
import OpenSwiftData
import Testing

/// Voyages with random values of every attribute type, for round trips through `osd export` and
/// `osd import`.
enum RandomVoyages {
    /// Inserts `count` voyages with random values; text includes U+0000 unless the store cannot
    /// hold it in text (PostgreSQL).
    static func insert(_ count: Int, into context: ModelContext, includingNul: Bool = true) {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "é", "e\u{301}", "\"", "\\", ",", "\n", "\r\n", "🇳🇴", "\t", " ", "ß", "Ω", "x"] + (includingNul ? ["\u{0}"] : [])
        func text() -> String { (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined() }
        func double() -> Double {
            switch Int.random(in: 0..<8, using: &generator) {
            case 0: .nan
            case 1: .infinity
            case 2: -.infinity
            case 3: -0.0
            case 4: .leastNonzeroMagnitude
            case 5: .greatestFiniteMagnitude
            default: Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &generator) & 0x7FEF_FFFF_FFFF_FFFF) * (Bool.random(using: &generator) ? 1 : -1)
            }
        }
        for index in 0..<count {
            let voyage = Voyage(
                name: text() + "#\(index)", start: Date(timeIntervalSinceReferenceDate: Double.random(in: -5e9...5e9, using: &generator)),
                rating: Int.random(in: Int.min...Int.max, using: &generator), score: double(),
                budget: Bool.random(using: &generator) ? Decimal(string: "\(Int.random(in: -99999...99999, using: &generator)).\(Int.random(in: 0...999, using: &generator))") : nil,
                notes: Bool.random(using: &generator) ? text() : nil, tags: [text(), text()], isDone: Bool.random(using: &generator))
            voyage.photo = Bool.random(using: &generator) ? Data((0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }) : nil
            voyage.distance = UInt64.random(in: 0...UInt64.max, using: &generator)
            voyage.site = Bool.random(using: &generator) ? URL(string: "https://example.com/\(index)?q=a,b") : nil
            context.insert(voyage)
        }
    }

    /// Expects the voyages to hold the same values, bit for bit, pairwise.
    static func expectEqual(_ original: [Voyage], _ copies: [Voyage]) {
        #expect(copies.count == original.count)
        for (a, b) in zip(original, copies) {
            #expect(a.name == b.name)
            #expect(a.notes == b.notes)
            #expect(a.tags == b.tags)
            #expect(a.rating == b.rating)
            #expect(a.budget == b.budget)
            #expect(a.score.bitPattern == b.score.bitPattern, "\(a.score) became \(b.score)")
            #expect(a.start.timeIntervalSinceReferenceDate.bitPattern == b.start.timeIntervalSinceReferenceDate.bitPattern, "\(a.start.timeIntervalSinceReferenceDate) became \(b.start.timeIntervalSinceReferenceDate)")
            #expect(a.photo == b.photo)
            #expect(a.distance == b.distance)
            #expect(a.site == b.site)
            #expect(a.code == b.code)
            #expect(a.isDone == b.isDone)
        }
    }
}
