import Foundation
@testable import OpenSwiftData

/// The seeded data set and the predicate forms of the differential tests.
enum PredicateCorpus {
    static let names = [
        "Summer", "summer", "SUMMER in Paris", "Été à Nice", "ete", "e\u{301}te", "été", "Ete", "", " ",
        "\u{212A}elvin", "Kelvin", "line\r\nbreak", "Zürich", "zurich", "Ωmega", "ωmega", "🏔️ Alps", "a", "B", "b",
        "10", "9", "Mañana", "man\u{303}ana", "日本", "straße", "STRASSE", "apple", "Apple pie", "umbrella",
    ]
    static let notes: [String?] = [nil, nil, nil, "", "x", "X", "a note", "another", "äpfel", "xx", "a"]

    /// Builds `count` items from a seed.
    static func items(count: Int, seed: UInt64) -> [Item] {
        var random = SeededGenerator(seed: seed)
        let scores: [Double] = [0, -0.0, 0.5, 1, -1, .nan, .infinity, -.infinity, 0.25, 3.75]
        return (0..<count).map { index in
            let name = names.randomElement(using: &random)! + (Bool.random(using: &random) ? "" : " \(index % 7)")
            var bytes = [UInt8](repeating: 0, count: 16)
            for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255, using: &random) }
            let code = bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
            return Item(
                name: name,
                note: notes.randomElement(using: &random)!,
                count: Int.random(in: -50...50, using: &random),
                optionalCount: Bool.random(using: &random) ? nil : Int.random(in: -10...10, using: &random),
                score: Bool.random(using: &random) ? scores.randomElement(using: &random)! : Double.random(in: -2...2, using: &random),
                optionalScore: Int.random(in: 0..<3, using: &random) == 0 ? nil : scores.randomElement(using: &random)!,
                flag: Bool.random(using: &random),
                date: Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...1_000_000, using: &random)) + 0.125),
                // A NaN now and then: Foundation orders it before every number.
                price: Int.random(in: 0..<16, using: &random) == 0 ? .nan : Decimal(Int.random(in: -2_000...2_000, using: &random)) / 100,
                big: Bool.random(using: &random) ? UInt64.random(in: 0...2_000, using: &random) : UInt64.random(in: 0...UInt64.max, using: &random),
                code: code,
                mood: Mood.allCases.randomElement(using: &random)!)
        }
    }

    /// Named predicate forms covering every translated node, plus forms that need Swift evaluation.
    static func predicates(sample: Item) -> [(String, Predicate<Item>)] {
        let same = ComparisonResult.orderedSame
        let ascending = ComparisonResult.orderedAscending
        let cutoff = Date(timeIntervalSinceReferenceDate: 500_000)
        let price = Decimal(string: "1.5")!
        let bigHalf = UInt64.max / 2
        let code = sample.code
        let names = ["Summer", "été", "Kelvin", "nothing"]
        let counts = [1, 2, 3, 5, 8, 13]
        let optionalNotes: [String?] = [nil, "x"]
        let dates = cutoff..<cutoff.addingTimeInterval(100_000)
        let happy = Mood.happy
        let ete = "ete"
        let empty = ""
        // U+0000 is a valid String scalar PostgreSQL text cannot hold: never stored, still ordered.
        let withNull = "Summer\u{0}x"
        let namesWithNull = ["Summer", "a\u{0}"]
        let infinity = Double.infinity
        return [
            ("bool", #Predicate<Item> { $0.flag }),
            ("not bool", #Predicate<Item> { !$0.flag }),
            ("int >", #Predicate<Item> { $0.count > 10 }),
            ("int range and", #Predicate<Item> { $0.count >= 0 && $0.count < 20 }),
            ("int or", #Predicate<Item> { $0.count == 7 || $0.count == -7 }),
            ("string ==", #Predicate<Item> { $0.name == "Summer" }),
            ("string == decomposed", #Predicate<Item> { $0.name == "e\u{301}te" }),
            ("string == kelvin", #Predicate<Item> { $0.name == "Kelvin" }),
            ("string !=", #Predicate<Item> { $0.name != "Summer" }),
            ("string == with NUL", #Predicate<Item> { $0.name == withNull }),
            ("string < with NUL", #Predicate<Item> { $0.name < withNull }),
            ("string > with NUL or int", #Predicate<Item> { $0.name > withNull || $0.count > 40 }),
            ("optional != with NUL", #Predicate<Item> { $0.note != withNull }),
            ("in strings with NUL", #Predicate<Item> { namesWithNull.contains($0.name) }),
            ("string <", #Predicate<Item> { $0.name < "M" }),
            ("string >= non-ascii", #Predicate<Item> { $0.name >= "é" }),
            ("contains", #Predicate<Item> { $0.name.contains("um") }),
            ("contains non-ascii", #Predicate<Item> { $0.name.contains("é") }),
            ("contains e", #Predicate<Item> { $0.name.contains("e") }),
            ("contains CR", #Predicate<Item> { $0.name.contains("\r") }),
            ("contains empty", #Predicate<Item> { $0.name.contains(empty) }),
            ("starts", #Predicate<Item> { $0.name.starts(with: "Su") }),
            ("starts non-ascii", #Predicate<Item> { $0.name.starts(with: "É") }),
            ("localizedStandardContains", #Predicate<Item> { $0.name.localizedStandardContains(ete) }),
            ("caseInsensitiveCompare", #Predicate<Item> { $0.name.caseInsensitiveCompare("SUMMER") == same }),
            ("localizedCompare", #Predicate<Item> { $0.name.localizedCompare("m") == ascending }),
            ("string count", #Predicate<Item> { $0.name.count > 5 }),
            ("string isEmpty", #Predicate<Item> { $0.name.isEmpty }),
            ("nil ==", #Predicate<Item> { $0.note == nil }),
            ("nil !=", #Predicate<Item> { $0.note != nil }),
            ("optional ==", #Predicate<Item> { $0.note == "x" }),
            ("optional !=", #Predicate<Item> { $0.note != "x" }),
            ("not optional ==", #Predicate<Item> { !($0.note == "x") }),
            ("coalesce", #Predicate<Item> { ($0.note ?? "") == "" }),
            ("optional chain contains", #Predicate<Item> { $0.note?.contains("a") == true }),
            ("optional chain count", #Predicate<Item> { ($0.note?.count ?? 0) > 3 }),
            ("if let", #Predicate<Item> { if let note = $0.note { note.starts(with: "a") } else { false } }),
            ("optional isEmpty", #Predicate<Item> { $0.note?.isEmpty == true }),
            ("optional int nil", #Predicate<Item> { $0.optionalCount == nil }),
            ("optional int !=", #Predicate<Item> { $0.optionalCount != 3 }),
            ("optional int coalesce", #Predicate<Item> { ($0.optionalCount ?? 0) > 2 }),
            ("force unwrap", #Predicate<Item> { $0.optionalCount! > 2 }),
            ("double >", #Predicate<Item> { $0.score > 0.5 }),
            ("double <", #Predicate<Item> { $0.score < 0.5 }),
            ("double !=", #Predicate<Item> { $0.score != 0.5 }),
            ("not double <", #Predicate<Item> { !($0.score < 0.5) }),
            ("double == 0", #Predicate<Item> { $0.score == 0 }),
            ("double >= inf", #Predicate<Item> { $0.score >= infinity }),
            ("optional double nil", #Predicate<Item> { $0.optionalScore == nil }),
            ("optional double coalesce", #Predicate<Item> { ($0.optionalScore ?? 1) >= 1 }),
            ("date >", #Predicate<Item> { $0.date > cutoff }),
            ("date >=, reversed", #Predicate<Item> { cutoff <= $0.date }),
            ("date ==", #Predicate<Item> { $0.date == cutoff }),
            ("date !=", #Predicate<Item> { $0.date != cutoff }),
            ("date and bool", #Predicate<Item> { $0.date <= cutoff && $0.flag }),
            ("decimal >", #Predicate<Item> { $0.price > 10 }),
            ("decimal <", #Predicate<Item> { $0.price < 0 }),
            ("decimal ==", #Predicate<Item> { $0.price == price }),
            ("uint64 >", #Predicate<Item> { $0.big > bigHalf }),
            ("uint64 <", #Predicate<Item> { $0.big < 1000 }),
            ("uuid ==", #Predicate<Item> { $0.code == code }),
            ("uuid !=", #Predicate<Item> { $0.code != code }),
            ("in strings", #Predicate<Item> { names.contains($0.name) }),
            ("in ints", #Predicate<Item> { counts.contains($0.count) }),
            ("in optionals", #Predicate<Item> { optionalNotes.contains($0.note) }),
            ("range", #Predicate<Item> { (0..<10).contains($0.count) }),
            ("closed range", #Predicate<Item> { (1...5).contains($0.count) }),
            ("captured range", #Predicate<Item> { dates.contains($0.date) }),
            ("remainder", #Predicate<Item> { $0.count % 3 == 0 }),
            ("arithmetic", #Predicate<Item> { $0.count * 2 + 1 > 11 }),
            ("negate", #Predicate<Item> { -$0.count > 5 }),
            ("division", #Predicate<Item> { $0.count / 4 == 2 }),
            ("ternary", #Predicate<Item> { $0.flag ? $0.count > 0 : $0.count < 0 }),
            ("enum (Swift)", #Predicate<Item> { $0.mood == happy }),
            ("double arithmetic (Swift)", #Predicate<Item> { $0.score * 2 > 1 }),
            ("computed key path (Swift)", #Predicate<Item> { $0.name.localizedLowercase == "summer" }),
            ("mixed and (partly Swift)", #Predicate<Item> { $0.name.contains("um") && $0.mood == happy }),
            ("negated Swift part", #Predicate<Item> { !($0.mood == happy) || $0.count > 40 }),
            ("none", #Predicate<Item> { $0.count > 100 }),
            ("all", #Predicate<Item> { _ in true }),
        ]
    }
}
