import Foundation
@testable import OSDKit
import Testing

/// The reader of `osd import`'s lines against Foundation's JSON on random and malformed text.
@Suite("osd import's JSON reader")
struct JSONParserTests {
    private func parse(_ text: String) -> JSONValue? {
        JSONValue(parsing: Array(text.utf8)[...])
    }

    @Test("random strings and numbers read back as Foundation wrote them")
    func randomValues() throws {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "é", "e\u{301}", "\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{1f}", "\u{7f}", "🇳🇴", "𝄞", "\u{2028}", " ", "{", "]"]
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let integer = Int64.random(in: .min ... .max, using: &generator)
            let unsigned = UInt64.random(in: UInt64(Int64.max) + 1 ... .max, using: &generator)
            let double = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &generator) & 0x7FEF_FFFF_FFFF_FFFF)
            let object: [String: Any] = ["s": text, text: [integer, NSNumber(value: unsigned)], "d": double, "n": NSNull(), "b": true]
            let data = try JSONSerialization.data(withJSONObject: object)
            let parsed = JSONValue(parsing: Array(data)[...])
            let expected: [String: JSONValue] = [
                "s": .string(text), text: .array([.integer(integer), .unsigned(unsigned)]),
                "d": Int64(exactly: double).map(JSONValue.integer) ?? .number(double), "n": .null, "b": .bool(true),
            ]
            #expect(parsed == .object(expected), "\(String(decoding: data, as: UTF8.self))")
        }
    }

    @Test("escapes, surrogate pairs, and exact numbers", arguments: [
        (#""\u00e9\ud834\udd1e\n\/""#, JSONValue.string("é𝄞\n/")),
        ("-0", .number(-0.0)),
        ("-0.0", .number(-0.0)),
        ("2.0", .integer(2)),
        ("1.5e3", .integer(1500)),
        ("1e-5", .number(1e-5)),
        ("18446744073709551615", .unsigned(.max)),
        ("18446744073709551616", .number(18446744073709551616)),
        (" [ 1 , {\"a\" : null} ] ", .array([.integer(1), .object(["a": .null])])),
    ])
    func exact(text: String, value: JSONValue) {
        #expect(parse(text) == value, "\(text)")
    }

    @Test("text that is not JSON is refused", arguments: [
        "", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "01", "1.", ".5", "-", "1e", "+1", "tru", "nul", "\"a", "\"\\x\"",
        "\"\\ud834\"", "\"\\ud834\\u0041\"", "\"\u{1}\"", "{\"a\":1} x", "[1] [2]", "NaN", "Infinity", "'a'",
    ])
    func refused(text: String) {
        #expect(parse(text) == nil, "\(text)")
    }

    @Test("deep nesting is refused, not a crash")
    func deepNesting() {
        #expect(parse(String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)) == nil)
        #expect(parse(String(repeating: "[", count: 100) + String(repeating: "]", count: 100)) != nil)
    }
}
