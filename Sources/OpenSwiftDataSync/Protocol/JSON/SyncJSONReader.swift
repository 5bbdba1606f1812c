import Foundation

/// Reads the JSON of the protocol's messages straight into their values, one byte at a time, with
/// no intermediate tree: the pull and push paths carry a hundred thousand rows per synchronization,
/// and `JSONDecoder` spends most of their time on its generic machinery.
///
/// Strict: malformed JSON, a value of the wrong form, or nesting deeper than
/// ``maximumDepth`` throws a ``SyncJSONError`` naming where; keys a message does not know are
/// skipped, as `JSONDecoder` skips them.
package struct SyncJSONReader {
    /// How deeply arrays and objects may nest, so hostile input cannot exhaust the stack.
    package static let maximumDepth = 64

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    /// The last long text read, and where.
    private var recent = 0..<0
    private var recentText = ""

    /// A reader of `data`.
    package init(_ data: some Collection<UInt8>) {
        bytes = Array(data)
    }

    // MARK: Structure

    /// Reads an object, handing each key to `body`, which reads its value.
    package mutating func readObject(_ body: (inout SyncJSONReader, String) throws(SyncJSONError) -> Void) throws(SyncJSONError) {
        try expect(UInt8(ascii: "{"), "an object")
        try enter()
        skipSpace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return
        }
        while true {
            skipSpace()
            let key = try readString()
            try expect(UInt8(ascii: ":"), "':' after the key \"\(key)\"")
            do {
                try body(&self, key)
            } catch {
                throw error.inside(key)
            }
            skipSpace()
            switch next() {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "}"):
                depth -= 1
                return
            default: throw problem("',' or '}' after the value of \"\(key)\"")
            }
        }
    }

    /// Reads an array, calling `body` to read each element.
    package mutating func readArray(_ body: (inout SyncJSONReader) throws(SyncJSONError) -> Void) throws(SyncJSONError) {
        try expect(UInt8(ascii: "["), "an array")
        try enter()
        skipSpace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return
        }
        var position = 0
        while true {
            do {
                try body(&self)
            } catch {
                throw error.inside("[\(position)]")
            }
            position += 1
            skipSpace()
            switch next() {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "]"):
                depth -= 1
                return
            default: throw problem("',' or ']' after an array element")
            }
        }
    }

    /// Reads an object whose values all have one form, as a dictionary.
    package mutating func readDictionary<Value>(_ value: (inout SyncJSONReader) throws(SyncJSONError) -> Value) throws(SyncJSONError) -> [String: Value] {
        var result: [String: Value] = [:]
        try readObject { reader, key throws(SyncJSONError) in result[key] = try value(&reader) }
        return result
    }

    /// Checks that nothing but white space follows the value read.
    package mutating func end() throws(SyncJSONError) {
        skipSpace()
        guard index == bytes.count else { throw problem("the end of the message") }
    }

    // MARK: Values

    /// Consumes `null` when it comes next, and says whether it did.
    package mutating func readNull() -> Bool {
        skipSpace()
        guard matches("null") else { return false }
        index += 4
        return true
    }

    /// Reads `true` or `false`.
    package mutating func readBool() throws(SyncJSONError) -> Bool {
        skipSpace()
        if matches("true") {
            index += 4
            return true
        }
        if matches("false") {
            index += 5
            return false
        }
        throw problem("true or false")
    }

    /// Reads a string, its escapes decoded; text that is not UTF-8 throws.
    package mutating func readString() throws(SyncJSONError) -> String {
        try expect(UInt8(ascii: "\""), "a string")
        let start = index
        var isASCII = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                return try text(start..<index, isASCII: isASCII)
            }
            if byte == UInt8(ascii: "\\") { return try readEscapedString(from: start) }
            guard byte >= 0x20 else { throw problem("no control character inside a string") }
            if byte >= 0x80 { isASCII = false }
            index += 1
        }
        throw problem("the end of a string")
    }

    /// The text of the bytes in `range`. A long text equal to the last long one read is that
    /// string again: a page of rows names the same client in every clock.
    private mutating func text(_ range: Range<Int>, isASCII: Bool) throws(SyncJSONError) -> String {
        let isLong = range.count > 15
        if isLong, range.count == recent.count, bytes[range].elementsEqual(bytes[recent]) { return recentText }
        let text: String
        if isASCII {
            text = String(decoding: bytes[range], as: UTF8.self)
        } else {
            guard let valid = String(validating: bytes[range], as: UTF8.self) else { throw problem("text in UTF-8") }
            text = valid
        }
        if isLong {
            recent = range
            recentText = text
        }
        return text
    }

    /// Reads an integer that fits 64 bits.
    package mutating func readInt64() throws(SyncJSONError) -> Int64 {
        let text = try numberText()
        guard let number = Int64(text) else { throw problem("an integer of 64 bits, not \(text)") }
        return number
    }

    /// Reads a non-negative integer that fits 64 bits.
    package mutating func readUInt64() throws(SyncJSONError) -> UInt64 {
        let text = try numberText()
        guard let number = UInt64(text) else { throw problem("an unsigned integer of 64 bits, not \(text)") }
        return number
    }

    /// Reads a number, exactly as written (the shortest form that reads back to the same bits).
    package mutating func readDouble() throws(SyncJSONError) -> Double {
        let text = try numberText()
        guard let number = Double(text), number.isFinite else { throw problem("a finite number, not \(text)") }
        return number
    }

    /// Skips a value of any form.
    package mutating func skipValue() throws(SyncJSONError) {
        skipSpace()
        switch peek() {
        case UInt8(ascii: "{"): try readObject { reader, _ throws(SyncJSONError) in try reader.skipValue() }
        case UInt8(ascii: "["): try readArray { reader throws(SyncJSONError) in try reader.skipValue() }
        case UInt8(ascii: "\""): _ = try readString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try readBool()
        case UInt8(ascii: "n"):
            guard readNull() else { throw problem("a value") }
        default: _ = try numberText()
        }
    }

    /// An error at the current position.
    package func problem(_ expected: String) -> SyncJSONError {
        SyncJSONError(path: [], message: "expected \(expected) at byte \(index)")
    }

    // MARK: Scanning

    private mutating func enter() throws(SyncJSONError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw problem("nesting no deeper than \(Self.maximumDepth)") }
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): index += 1
            default: return
            }
        }
    }

    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private mutating func next() -> UInt8? {
        guard index < bytes.count else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    private mutating func expect(_ byte: UInt8, _ expected: @autoclosure () -> String) throws(SyncJSONError) {
        skipSpace()
        guard peek() == byte else { throw problem(expected()) }
        index += 1
    }

    private func matches(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return word.withUTF8Buffer { word in
            for offset in 0..<count where bytes[index + offset] != word[offset] { return false }
            return true
        }
    }

    /// The text of a number: an optional minus, digits, an optional fraction and exponent.
    private mutating func numberText() throws(SyncJSONError) -> String {
        skipSpace()
        let start = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"):
                index += 1
            default:
                guard index > start else { throw problem("a number") }
                return String(decoding: bytes[start..<index], as: UTF8.self)
            }
        }
        guard index > start else { throw problem("a number") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// Reads the rest of a string that has escapes, from its first byte at `start`.
    private mutating func readEscapedString(from start: Int) throws(SyncJSONError) -> String {
        var unescaped = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: unescaped, as: UTF8.self) else { throw problem("text in UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                guard let escape = next() else { throw problem("an escape") }
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unescaped.append(escape)
                case UInt8(ascii: "b"): unescaped.append(0x08)
                case UInt8(ascii: "f"): unescaped.append(0x0C)
                case UInt8(ascii: "n"): unescaped.append(0x0A)
                case UInt8(ascii: "r"): unescaped.append(0x0D)
                case UInt8(ascii: "t"): unescaped.append(0x09)
                case UInt8(ascii: "u"): unescaped.append(contentsOf: try readUnicodeEscape())
                default: throw problem("a valid escape")
                }
            default:
                guard byte >= 0x20 else { throw problem("no control character inside a string") }
                unescaped.append(byte)
            }
        }
        throw problem("the end of a string")
    }

    /// The UTF-8 of a `\uXXXX` escape (after its `u`), with the second half of a surrogate pair.
    private mutating func readUnicodeEscape() throws(SyncJSONError) -> [UInt8] {
        var scalar = try readHexQuad()
        if (0xD800..<0xDC00).contains(scalar) {
            guard next() == UInt8(ascii: "\\"), next() == UInt8(ascii: "u") else { throw problem("the second half of a surrogate pair") }
            let low = try readHexQuad()
            guard (0xDC00..<0xE000).contains(low) else { throw problem("the second half of a surrogate pair") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw problem("a Unicode scalar") }
        return Array(String(Character(unicode)).utf8)
    }

    private mutating func readHexQuad() throws(SyncJSONError) -> UInt32 {
        guard index + 4 <= bytes.count, bytes[index..<index + 4].allSatisfy({ ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x66 || (0x30...0x39).contains($0) }),
              let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
        else { throw problem("four hexadecimal digits") }
        index += 4
        return value
    }
}

/// JSON the protocol cannot read: where, and what was expected there.
package struct SyncJSONError: Error, CustomStringConvertible {
    /// The keys and array positions from the message's top to the problem.
    package var path: [String]
    /// What was expected there, and the byte it was not found at.
    package var message: String

    /// The error with `component` in front of its path.
    func inside(_ component: String) -> SyncJSONError {
        SyncJSONError(path: [component] + path, message: message)
    }

    /// `values.price: expected a finite number, not 1e999 at byte 42`.
    package var description: String {
        var location = ""
        for component in path { location += component.hasPrefix("[") || location.isEmpty ? component : "." + component }
        return location.isEmpty ? message : "\(location): \(message)"
    }
}
