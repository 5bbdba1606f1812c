import OpenSwiftData

/// A JSON value read exactly: integers stay integers (up to `UInt64`), other numbers keep the
/// text Swift prints for the `Double` they parse to.
enum JSONValue: Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case unsigned(UInt64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The one JSON value (RFC 8259) that `bytes` hold, with whitespace around it, or `nil` when
    /// they hold anything else.
    init?(parsing bytes: ArraySlice<UInt8>) {
        var parser = JSONParser(bytes)
        guard let value = parser.value(depth: 0) else { return nil }
        parser.skipWhitespace()
        guard parser.isAtEnd else { return nil }
        self = value
    }

    /// What a value of `storage` must be in JSON, or `nil` when this value is one.
    func mismatch(for attribute: StoredSchema.Attribute) -> String? {
        let isBool = attribute.type == "Bool" || attribute.type == "Bool?"
        switch (attribute.storage, self) {
        case (.integer, .bool) where isBool: return nil
        case (.integer, _) where isBool: return "true or false"
        case (.integer, .integer), (.unsignedInteger, .integer), (.unsignedInteger, .unsigned): return nil
        case (.integer, _), (.unsignedInteger, _): return "an integer"
        case (.real, .integer), (.real, .unsigned), (.real, .number): return nil
        case (.real, .string(let text)) where ["nan", "inf", "-inf"].contains(text): return nil
        case (.real, _): return "a number (or \"nan\", \"inf\", \"-inf\")"
        case (.decimal, .integer), (.decimal, .unsigned), (.decimal, .number), (.decimal, .string): return nil
        case (.decimal, _): return "a decimal number or its string"
        case (_, .string): return nil
        default: return "a string"
        }
    }

    /// The value as the text ``ValueText`` reads, or `nil` for `null`, arrays and objects.
    var scalarText: String? {
        switch self {
        case .null, .array, .object: nil
        case .bool(let flag): flag ? "true" : "false"
        case .integer(let number): String(number)
        case .unsigned(let number): String(number)
        case .number(let number): "\(number)"
        case .string(let text): text
        }
    }
}
