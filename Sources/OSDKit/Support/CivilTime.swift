import Foundation

/// Whole seconds since 2001-01-01 00:00:00 UTC as an ISO 8601 date-time in UTC
/// (`2026-11-24T10:00:00Z`) and back, by calendar arithmetic: exact, and without creating a date
/// formatter per value. Covers the years 1583–9999, where the Gregorian calendar is unambiguous;
/// outside them, and for date-times this parser does not take, ``ValueText`` uses Foundation's
/// `ISO8601DateFormatter`.
enum CivilTime {
    /// Seconds from 1970-01-01 to 2001-01-01.
    private static let referenceOffset: Int64 = 978_307_200
    private static let years: ClosedRange<Int64> = 1583...9999

    /// `YYYY-MM-DDTHH:MM:SSZ` for whole seconds since 2001, or `nil` outside the years covered.
    static func text(wholeSeconds: Int64) -> String? {
        let (sinceEpoch, overflow) = wholeSeconds.addingReportingOverflow(referenceOffset)
        guard !overflow else { return nil }
        let days = sinceEpoch >= 0 ? sinceEpoch / 86_400 : (sinceEpoch - 86_399) / 86_400
        let secondOfDay = sinceEpoch - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        guard years.contains(year) else { return nil }
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(secondOfDay / 3_600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
    }

    /// The whole seconds since 2001 of `YYYY-MM-DDTHH:MM:SS` followed by `Z` or an offset
    /// (`+02:00`, `-0530`), or `nil` when the text has another form or the date is not a real one.
    static func wholeSeconds(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let year = number(bytes[0..<4]), let month = number(bytes[5..<7]), let day = number(bytes[8..<10]),
              let hour = number(bytes[11..<13]), let minute = number(bytes[14..<16]), let second = number(bytes[17..<19]),
              years.contains(year), (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60, second < 60,
              let offset = offsetSeconds(bytes[19...])
        else { return nil }
        let days = self.days(fromCivil: year, month, day)
        return days * 86_400 + hour * 3_600 + minute * 60 + second - offset - referenceOffset
    }

    /// `Z`, or `±HH:MM` / `±HHMM`, in seconds east of UTC.
    private static func offsetSeconds(_ bytes: ArraySlice<UInt8>) -> Int64? {
        let rest = Array(bytes)
        if rest == [UInt8(ascii: "Z")] || rest == [UInt8(ascii: "z")] { return 0 }
        guard rest.count == 6 || rest.count == 5, rest[0] == UInt8(ascii: "+") || rest[0] == UInt8(ascii: "-") else { return nil }
        let digits = rest.count == 6 && rest[3] == UInt8(ascii: ":") ? Array(rest[1..<3] + rest[4..<6]) : Array(rest[1...])
        guard digits.count == 4, let hours = number(digits[0..<2]), let minutes = number(digits[2..<4]), hours < 24, minutes < 60 else { return nil }
        let seconds = hours * 3_600 + minutes * 60
        return rest[0] == UInt8(ascii: "-") ? -seconds : seconds
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> Int64? {
        var value: Int64 = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(digit - UInt8(ascii: "0"))
        }
        return value
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a number of days since 1970-01-01.
    private static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
