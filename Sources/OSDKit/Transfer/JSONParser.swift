/// A strict JSON reader over UTF-8 bytes, for the one-object lines `osd import` reads: faster than
/// `JSONDecoder` into a generic value by an order of magnitude, and exact about numbers (see
/// ``JSONValue``). Every method returns `nil` on text that is not JSON.
struct JSONParser {
    private let bytes: ArraySlice<UInt8>
    private var position: Int

    /// Values nested deeper than this are refused rather than parsed by recursion.
    private static let maximumDepth = 512

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        position = bytes.startIndex
    }

    var isAtEnd: Bool { position == bytes.endIndex }

    mutating func skipWhitespace() {
        while position < bytes.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    mutating func value(depth: Int) -> JSONValue? {
        guard depth < Self.maximumDepth else { return nil }
        skipWhitespace()
        guard position < bytes.endIndex else { return nil }
        switch bytes[position] {
        case UInt8(ascii: "{"): return object(depth: depth)
        case UInt8(ascii: "["): return array(depth: depth)
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number()
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
        let count = word.utf8CodeUnitCount
        guard bytes.endIndex - position >= count else { return nil }
        for offset in 0..<count where bytes[position + offset] != word.utf8Start[offset] { return nil }
        position += count
        return value
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard position < bytes.endIndex, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    private mutating func object(depth: Int) -> JSONValue? {
        position += 1
        var members: [String: JSONValue] = [:]
        if consume(UInt8(ascii: "}")) { return .object(members) }
        repeat {
            skipWhitespace()
            guard position < bytes.endIndex, bytes[position] == UInt8(ascii: "\""), let key = string(),
                  consume(UInt8(ascii: ":")), let value = value(depth: depth + 1)
            else { return nil }
            members[key] = value
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "}")) ? .object(members) : nil
    }

    private mutating func array(depth: Int) -> JSONValue? {
        position += 1
        var elements: [JSONValue] = []
        if consume(UInt8(ascii: "]")) { return .array(elements) }
        repeat {
            guard let element = value(depth: depth + 1) else { return nil }
            elements.append(element)
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "]")) ? .array(elements) : nil
    }

    /// A string literal at the position (which holds its opening quote).
    private mutating func string() -> String? {
        position += 1
        let start = position
        // Without escapes, the bytes between the quotes are the string.
        while position < bytes.endIndex, bytes[position] != UInt8(ascii: "\""), bytes[position] != UInt8(ascii: "\\") {
            guard bytes[position] >= 0x20 else { return nil }
            position += 1
        }
        guard position < bytes.endIndex else { return nil }
        var scalars = Array(bytes[start..<position])
        while bytes[position] == UInt8(ascii: "\\") {
            position += 1
            guard position < bytes.endIndex else { return nil }
            let escape = bytes[position]
            position += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
            case UInt8(ascii: "b"): scalars.append(0x08)
            case UInt8(ascii: "f"): scalars.append(0x0C)
            case UInt8(ascii: "n"): scalars.append(0x0A)
            case UInt8(ascii: "r"): scalars.append(0x0D)
            case UInt8(ascii: "t"): scalars.append(0x09)
            case UInt8(ascii: "u"):
                guard let scalar = unicodeEscape() else { return nil }
                scalars.append(contentsOf: String(Character(scalar)).utf8)
            default: return nil
            }
            while position < bytes.endIndex, bytes[position] != UInt8(ascii: "\""), bytes[position] != UInt8(ascii: "\\") {
                guard bytes[position] >= 0x20 else { return nil }
                scalars.append(bytes[position])
                position += 1
            }
            guard position < bytes.endIndex else { return nil }
        }
        position += 1   // the closing quote
        return String(validating: scalars, as: UTF8.self)
    }

    /// The scalar of a `\uXXXX` escape (after its `\u`), joining a surrogate pair.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let first = hexQuad() else { return nil }
        if (0xD800..<0xDC00).contains(first) {
            guard bytes.endIndex - position >= 6, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else { return nil }
            position += 2
            guard let second = hexQuad(), (0xDC00..<0xE000).contains(second) else { return nil }
            return Unicode.Scalar(0x10000 + (first - 0xD800) << 10 + (second - 0xDC00))
        }
        return Unicode.Scalar(first)
    }

    private mutating func hexQuad() -> UInt32? {
        guard bytes.endIndex - position >= 4 else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Self.hexDigit(bytes[position]) else { return nil }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    private static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// A number, by RFC 8259's grammar: an integer when it has neither fraction nor exponent and
    /// fits `Int64` or `UInt64` (or has them and is a whole `Double` within `Int64`), else a `Double`.
    /// `-0` is the `Double` `-0.0`, keeping its sign.
    private mutating func number() -> JSONValue? {
        let start = position
        func digits() -> Int {
            let first = position
            while position < bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            return position - first
        }
        if position < bytes.endIndex, bytes[position] == UInt8(ascii: "-") { position += 1 }
        let integerStart = position
        let integerDigits = digits()
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return nil }
        var isInteger = true
        if position < bytes.endIndex, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { return nil }
            isInteger = false
        }
        if position < bytes.endIndex, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.endIndex, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { return nil }
            isInteger = false
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if isInteger {
            if let number = Int64(text) {
                return number == 0 && bytes[start] == UInt8(ascii: "-") ? .number(-0.0) : .integer(number)
            }
            if let number = UInt64(text) { return .unsigned(number) }
        }
        guard let number = Double(text) else { return nil }
        if !isInteger, number.sign == .plus || number != 0, let whole = Int64(exactly: number) { return .integer(whole) }
        return .number(number)
    }
}
