import Foundation
import Testing
@testable import OpenSwiftData

/// The SQLite store's text order (collation `OSD`, used by comparisons and sorts) equals the order
/// of the texts' NFC forms, however the texts are spelled: precomposed or not, with combining
/// marks in either order, Hangul jamo, singletons such as the Kelvin sign.
@Suite struct TextOrderTests {
    /// Pieces whose concatenations compose, decompose and reorder under NFC.
    static let pieces = [
        "a", "e", "K", "k", "A", "z", "0", "9", " ", "-", "\r\n", "\r",
        "\u{301}", "é", "e\u{301}", "\u{212A}", "Å", "A\u{30A}", "\u{212B}",
        "\u{1100}", "\u{1161}", "\u{11A8}", "가", "각",
        "\u{323}", "\u{307}", "ḍ", "ḋ", "ṩ", "s\u{323}\u{307}", "s\u{307}\u{323}",
        "ß", "ﬁ", "ｅ", "東", "😀", "\u{FFFD}", "\u{0CC6}", "\u{0CC2}", "\u{0CCA}",
    ]

    static func text(_ generator: inout SeededGenerator, length: Int) -> String {
        (0..<length).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
    }

    /// The reference: the UTF-8 bytes of the NFC forms, compared as a whole.
    static func reference(_ lhs: String, _ rhs: String) -> Int32 {
        let a = Array(lhs.precomposedStringWithCanonicalMapping.utf8)
        let b = Array(rhs.precomposedStringWithCanonicalMapping.utf8)
        return a == b ? 0 : (a.lexicographicallyPrecedes(b) ? -1 : 1)
    }

    static func collation(_ lhs: String, _ rhs: String) -> Int32 {
        var left = lhs
        var right = rhs
        return left.withUTF8 { a in right.withUTF8 { b in SwiftSemantics.compare(UnsafeRawBufferPointer(a), UnsafeRawBufferPointer(b)) } }
    }

    @Test func randomTextsWithSharedPrefixesOrderAsTheirNFCForms() {
        var generator = SeededGenerator(seed: 42)
        var mismatches: [String] = []
        for _ in 0..<40_000 {
            let prefix = Self.text(&generator, length: Int(generator.next() % 4))
            let lhs = prefix + Self.text(&generator, length: Int(generator.next() % 4))
            let rhs = prefix + Self.text(&generator, length: Int(generator.next() % 4))
            let expected = Self.reference(lhs, rhs)
            if Self.collation(lhs, rhs) != expected || Self.collation(rhs, lhs) != -expected {
                mismatches.append("\(lhs.unicodeScalars.map { String($0.value, radix: 16) }) vs \(rhs.unicodeScalars.map { String($0.value, radix: 16) })")
            }
        }
        #expect(mismatches.count == 0, "first mismatches: \(mismatches.prefix(5))")
    }

    @Test func decidingCasesOrderAsTheirNFCForms() {
        let pairs: [(String, String)] = [
            ("e\u{301}", "f"), ("e", "e\u{301}"), ("é", "e\u{301}"), ("ab", "abc"), ("abc", "abd"), ("Title 1 Päris", "Title 2 Päris"),
            ("x\u{212A}", "xK"), ("\u{1100}\u{1161}", "가"), ("s\u{323}\u{307}", "s\u{307}\u{323}"), ("A\u{30A}b", "Åa"), ("", "\u{301}"),
        ]
        for (lhs, rhs) in pairs {
            #expect(Self.collation(lhs, rhs) == Self.reference(lhs, rhs), "\(lhs) vs \(rhs)")
            #expect(Self.collation(rhs, lhs) == Self.reference(rhs, lhs), "\(rhs) vs \(lhs)")
        }
    }
}
