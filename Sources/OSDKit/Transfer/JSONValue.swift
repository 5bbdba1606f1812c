import OpenSwiftData

/// A JSON value decoded exactly: integers stay integers (up to `UInt64`), other numbers keep the
/// text Swift prints for the `Double` they parse to.
enum JSONValue: Decodable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case unsigned(UInt64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Each kind in turn; the last attempt throws the decoder's error for a value of none.
        if container.decodeNil() { self = .null }
        else if let flag = try? container.decode(Bool.self) { self = .bool(flag) }
        else if let number = try? container.decode(Int64.self) {
            // `-0.0` decodes as the integer 0; keep its sign as a Double.
            if number == 0, let double = try? container.decode(Double.self), double.sign == .minus { self = .number(double) }
            else { self = .integer(number) }
        }
        else if let number = try? container.decode(UInt64.self) { self = .unsigned(number) }
        else if let number = try? container.decode(Double.self) { self = .number(number) }
        else if let text = try? container.decode(String.self) { self = .string(text) }
        else if let array = try? container.decode([JSONValue].self) { self = .array(array) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
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
