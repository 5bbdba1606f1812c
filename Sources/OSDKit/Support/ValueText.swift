import Foundation
import OpenSwiftData

/// How `osd` writes attribute values as text (JSON, CSV, tables) and reads them back, exactly:
/// a value exported and imported again is stored with the same bits.
///
/// - numbers as JSON numbers; `Double` NaN and infinities as the strings `"nan"`, `"inf"`, `"-inf"`;
/// - `Date` as ISO 8601 in UTC with as many fraction digits as the stored value needs
///   (`2026-11-24T10:00:00.125Z`);
/// - `Data` as Base64, `UUID` and `Decimal` as their strings, other `Codable` values as their JSON text.
enum ValueText {
    /// The text of a value, without JSON quoting.
    static func text(_ value: TypedValue) -> String {
        switch value {
        case .null: ""
        case .bool(let flag): flag ? "true" : "false"
        case .int(let number): String(number)
        case .uint(let number): String(number)
        case .double(let number): text(number)
        case .date(let date): iso8601(date)
        case .string(let text), .json(let text): text
        case .data(let bytes): Data(bytes).base64EncodedString()
        case .uuid(let uuid): uuid.uuidString
        case .decimal(let decimal): decimal.description
        }
    }

    /// The value as a JSON value.
    static func json(_ value: TypedValue) -> String {
        switch value {
        case .null: "null"
        case .bool, .int, .uint: text(value)
        case .double(let number): number.isFinite ? text(number) : quoted(text(number))
        default: quoted(text(value))
        }
    }

    static func text(_ number: Double) -> String {
        if number.isNaN { return "nan" }
        if number.isInfinite { return number < 0 ? "-inf" : "inf" }
        return "\(number)"
    }

    /// A JSON string literal.
    static func quoted(_ text: String) -> String {
        escaped(text) { String(format: "\\u%04x", $0) }
    }

    /// `text` in double quotes with `"`, `\`, line breaks and tabs escaped, and other control
    /// characters written by `control` (JSON and Swift spell them differently).
    static func escaped(_ text: String, control: (UInt32) -> String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20: result += control(scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    // MARK: Dates

    /// ISO 8601 in UTC, with the fraction digits of the shortest decimal that is the stored `Double`.
    static func iso8601(_ date: Date) -> String {
        let seconds = date.timeIntervalSinceReferenceDate
        guard seconds.isFinite, let exact = Decimal(string: "\(seconds)") else { return text(seconds) }
        var whole = exact
        var rounded = Decimal()
        NSDecimalRound(&rounded, &whole, 0, .down)
        if rounded > exact { rounded -= 1 }
        var fraction = exact - rounded
        if fraction < 0 { fraction += 1; rounded -= 1 }
        let wholeSeconds = NSDecimalNumber(decimal: rounded).int64Value
        var stamp = CivilTime.text(wholeSeconds: wholeSeconds) ?? {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime]
            formatter.timeZone = TimeZone(identifier: "UTC")
            return formatter.string(from: Date(timeIntervalSinceReferenceDate: Double(wholeSeconds)))
        }()
        if fraction != 0 {
            let digits = fraction.description.drop { $0 != "." }   // ".125"
            stamp.removeLast()   // "Z"
            stamp += digits + "Z"
        }
        return stamp
    }

    /// A date written by ``iso8601(_:)`` (or any ISO 8601 date-time with a `Z` or offset), or a
    /// number of seconds since 2001-01-01 00:00:00 UTC.
    static func date(_ text: String) -> Date? {
        if !text.contains(":"), let seconds = Double(text) { return Date(timeIntervalSinceReferenceDate: seconds) }
        var main = text
        var fraction = Decimal(0)
        if let dot = text.firstIndex(of: ".") {
            var end = text.index(after: dot)
            while end < text.endIndex, text[end].isNumber { end = text.index(after: end) }
            guard let digits = Decimal(string: "0" + text[dot..<end]) else { return nil }
            fraction = digits
            main = String(text[..<dot] + text[end...])
        }
        let whole: Int64
        if let seconds = CivilTime.wholeSeconds(main) {
            whole = seconds
        } else {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime]
            guard let date = formatter.date(from: main) else { return nil }
            whole = Int64(date.timeIntervalSinceReferenceDate.rounded())
        }
        let total = Decimal(whole) + fraction
        guard let seconds = Double(total.description) else { return nil }
        return Date(timeIntervalSinceReferenceDate: seconds)
    }

    // MARK: Reading

    /// The value of `attribute` that `text` writes (as ``text(_:)`` writes it), or an error naming
    /// the expected form.
    static func value(_ text: String, for attribute: StoredSchema.Attribute) throws(ToolError) -> TypedValue {
        let type = attribute.type.map { $0.hasSuffix("?") ? String($0.dropLast()) : $0 }
        switch attribute.storage {
        case .integer:
            if type == "Bool" {
                switch text {
                case "true", "1": return .bool(true)
                case "false", "0": return .bool(false)
                default: throw ToolError("expected true or false, found \(text.debugDescription)")
                }
            }
            guard let number = Int64(text) else { throw ToolError("expected an integer, found \(text.debugDescription)") }
            return .int(number)
        case .unsignedInteger:
            guard let number = UInt64(text) else { throw ToolError("expected an unsigned integer, found \(text.debugDescription)") }
            return .uint(number)
        case .real:
            switch text {
            case "nan": return .double(.nan)
            case "inf": return .double(.infinity)
            case "-inf": return .double(-.infinity)
            default:
                guard let number = Double(text), number.isFinite else { throw ToolError("expected a number, found \(text.debugDescription)") }
                return .double(number)
            }
        case .date:
            guard let date = date(text) else { throw ToolError("expected an ISO 8601 date such as 2026-11-24T10:00:00Z, found \(text.debugDescription)") }
            return .date(date)
        case .text:
            if type == "URL", URL(string: text) == nil { throw ToolError("expected a URL, found \(text.debugDescription)") }
            return .string(text)
        case .blob:
            guard let data = Data(base64Encoded: text) else { throw ToolError("expected Base64 data, found \(text.debugDescription)") }
            return .data(Array(data))
        case .uuid:
            guard let uuid = UUID(uuidString: text) else { throw ToolError("expected a UUID, found \(text.debugDescription)") }
            return .uuid(uuid)
        case .decimal:
            let allowed = Set("0123456789+-.eE")
            guard !text.isEmpty, text.allSatisfy(allowed.contains),
                  let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !decimal.isNaN
            else { throw ToolError("expected a decimal number, found \(text.debugDescription)") }
            return .decimal(decimal)
        case .json:
            guard (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil else {
                throw ToolError("expected JSON text, found \(text.debugDescription)")
            }
            return .json(text)
        }
    }
}
