import Foundation

/// Swift source text for values in generated code.
enum SwiftLiteral {
    /// A string literal with Swift's escapes.
    static func string(_ text: String) -> String {
        ValueText.escaped(text) { "\\u{\(String($0, radix: 16))}" }
    }

    /// The expression of an attribute's default value.
    static func defaultValue(_ value: SchemaDocument.DefaultValue, type: String) -> String {
        switch (type, value) {
        case ("Date", .string("now")): return ".now"
        case ("Date", .string(let text)):
            return "Date(timeIntervalSinceReferenceDate: \(ValueText.date(text)?.timeIntervalSinceReferenceDate ?? 0))"
        case ("UUID", .string("new")): return "UUID()"
        case ("UUID", .string(let text)): return "UUID(uuidString: \(string(text)))!"
        case ("URL", .string(let text)): return "URL(string: \(string(text)))!"
        case ("Decimal", .string(let text)): return "Decimal(string: \(string(text)))!"
        case ("Decimal", .integer(let number)): return "Decimal(\(number))"
        case ("Decimal", .number(let number)): return "Decimal(string: \(string("\(number)")))!"
        case (_, .string(let text)) where type.hasPrefix("[") || type.hasPrefix("Set<"): return text == "[:]" ? "[:]" : "[]"
        case (_, .string(let text)): return string(text)
        case (_, .integer(let number)): return String(number)
        case (_, .number(let number)): return "\(number)"
        case (_, .boolean(let flag)): return flag ? "true" : "false"
        }
    }
}
