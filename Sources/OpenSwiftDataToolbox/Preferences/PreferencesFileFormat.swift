import Foundation

/// The preferences file: one JSON object, one key per line in sorted order, each value kept as the
/// exact JSON text it was written with.
///
/// Values stay text until a key is read with a type, so a value that one version of an app can't
/// decode survives, byte for byte, the writes of other keys.
enum PreferencesFileFormat {
    struct Damage: Error {
        var offset: Int
        var reason: String
    }

    /// Splits a JSON object into its keys and the raw JSON text of each value.
    static func parse(_ data: Data) throws(Damage) -> [String: Data] {
        let bytes = [UInt8](data)
        var scanner = Scanner(bytes: bytes)
        var values: [String: Data] = [:]
        scanner.skipWhitespace()
        if scanner.atEnd { return [:] }
        try scanner.expect(UInt8(ascii: "{"))
        scanner.skipWhitespace()
        if scanner.peek == UInt8(ascii: "}") {
            scanner.position += 1
        } else {
            while true {
                scanner.skipWhitespace()
                let keyRange = try scanner.skipString()
                let key: String
                do {
                    key = try JSONDecoder().decode(String.self, from: Data(bytes[keyRange]))
                } catch {
                    throw Damage(offset: keyRange.lowerBound, reason: "a key that is not a JSON string (\(error))")
                }
                scanner.skipWhitespace()
                try scanner.expect(UInt8(ascii: ":"))
                scanner.skipWhitespace()
                let valueRange = try scanner.skipValue()
                values[key] = Data(bytes[valueRange])
                scanner.skipWhitespace()
                if scanner.peek == UInt8(ascii: ",") {
                    scanner.position += 1
                    continue
                }
                try scanner.expect(UInt8(ascii: "}"))
                break
            }
        }
        scanner.skipWhitespace()
        guard scanner.atEnd else { throw Damage(offset: scanner.position, reason: "text after the object") }
        return values
    }

    /// Writes keys and raw values as a JSON object, one key per line, keys sorted.
    static func serialize(_ values: [String: Data]) -> Data {
        var output = Data("{".utf8)
        for (index, entry) in values.sorted(by: { $0.key < $1.key }).enumerated() {
            output.append(contentsOf: Array((index == 0 ? "\n  " : ",\n  ").utf8))
            output.append(contentsOf: Array(quoted(entry.key).utf8))
            output.append(contentsOf: Array(": ".utf8))
            output.append(entry.value)
        }
        output.append(contentsOf: Array((values.isEmpty ? "}\n" : "\n}\n").utf8))
        return output
    }

    /// A key as a JSON string: quotes, backslashes and control characters escaped.
    static func quoted(_ key: String) -> String {
        var text = "\""
        for scalar in key.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }

    private struct Scanner {
        let bytes: [UInt8]
        var position = 0

        var atEnd: Bool { position >= bytes.count }
        var peek: UInt8? { atEnd ? nil : bytes[position] }

        mutating func skipWhitespace() {
            while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                position += 1
            }
        }

        mutating func expect(_ byte: UInt8) throws(Damage) {
            guard peek == byte else {
                throw Damage(offset: position, reason: "expected '\(Character(Unicode.Scalar(byte)))'")
            }
            position += 1
        }

        /// Skips a string and returns its range, quotes included.
        mutating func skipString() throws(Damage) -> Range<Int> {
            let start = position
            try expect(UInt8(ascii: "\""))
            while let byte = peek {
                position += 1
                if byte == UInt8(ascii: "\\") {
                    guard !atEnd else { break }
                    position += 1
                } else if byte == UInt8(ascii: "\"") {
                    return start..<position
                }
            }
            throw Damage(offset: start, reason: "a string that doesn't end")
        }

        /// Skips one JSON value and returns its range.
        mutating func skipValue() throws(Damage) -> Range<Int> {
            let start = position
            switch peek {
            case UInt8(ascii: "\""):
                return try skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while let byte = peek {
                    switch byte {
                    case UInt8(ascii: "\""):
                        _ = try skipString()
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                    default:
                        break
                    }
                    position += 1
                    if depth == 0 { return start..<position }
                }
                throw Damage(offset: start, reason: "an object or array that doesn't end")
            default:
                while let byte = peek, byte != UInt8(ascii: ","), byte != UInt8(ascii: "}"),
                      byte != 0x20, byte != 0x0A, byte != 0x0D, byte != 0x09 {
                    position += 1
                }
                guard position > start else { throw Damage(offset: start, reason: "a missing value") }
                return start..<position
            }
        }
    }
}
