import Foundation
@testable import OSDKit
import Testing

/// The dates `osd` writes and reads without a date formatter agree with Foundation's ISO 8601
/// formatter on every second of the years they cover.
@Suite("ISO 8601 dates by calendar arithmetic")
struct CivilTimeTests {
    private func formatter() -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter
    }

    @Test("random seconds format as the formatter formats them and parse back")
    func agreesWithTheFormatter() throws {
        let formatter = formatter()
        var generator = SystemRandomNumberGenerator()
        // 1583-01-01 to 9999-12-31, and the edges of both.
        let lowest: Int64 = -13_190_860_800, highest: Int64 = 252_423_993_599
        let edges: [Int64] = [lowest, lowest + 1, highest, highest - 1, 0, -1, 1, 5_097_600, 5_097_599, -978_307_200]
        for seconds in edges + (0..<20_000).map({ _ in Int64.random(in: lowest...highest, using: &generator) }) {
            let text = try #require(CivilTime.text(wholeSeconds: seconds), "\(seconds)")
            #expect(text == formatter.string(from: Date(timeIntervalSinceReferenceDate: Double(seconds))), "\(seconds)")
            #expect(CivilTime.wholeSeconds(text) == seconds, "\(text)")
        }
        #expect(CivilTime.text(wholeSeconds: lowest - 1) == nil)
        #expect(CivilTime.text(wholeSeconds: highest + 1) == nil)
        #expect(CivilTime.text(wholeSeconds: .max) == nil)
    }

    @Test("offsets, and text that is not a real date-time", arguments: [
        ("2026-11-24T12:00:00+02:00", Optional<Int64>(817_207_200)),
        ("2026-11-24T05:30:00-0430", 817_207_200),
        ("2026-11-24T10:00:00z", 817_207_200),
        ("2026-02-29T10:00:00Z", nil),
        ("2024-02-29T10:00:00Z", 730_893_600),
        ("2026-13-01T10:00:00Z", nil),
        ("2026-11-24T24:00:00Z", nil),
        ("2026-11-24 10:00:00Z", nil),
        ("2026-11-24T10:00:00", nil),
        ("2026-11-24T10:00:00+2:00", nil),
        ("2026-1a-24T10:00:00Z", nil),
    ])
    func parsing(text: String, seconds: Int64?) {
        #expect(CivilTime.wholeSeconds(text) == seconds, "\(text)")
        if let seconds {
            #expect(ValueText.date(text) == Date(timeIntervalSinceReferenceDate: Double(seconds)))
        }
    }
}
