import Foundation

/// Writes the JSON of the protocol's messages straight from their values: the same JSON
/// `JSONEncoder` writes for them (numbers in the shortest form that reads back to the same bits,
/// dates as seconds since 2001, data in Base64), without its generic machinery.
package struct SyncJSONWriter {
    /// The JSON written so far.
    package private(set) var bytes: [UInt8] = []
    /// Whether the object or array being written has no member yet, innermost last.
    private var opened: [Bool] = []

    /// An empty writer.
    package init() {
        bytes.reserveCapacity(1024)
    }

    /// The JSON written, as data.
    package var data: Data { Data(bytes) }

    // MARK: Structure

    /// Writes an object whose members `body` writes with ``key(_:)`` and a value each.
    package mutating func object<Failure: Error>(_ body: (inout SyncJSONWriter) throws(Failure) -> Void) throws(Failure) {
        bytes.append(UInt8(ascii: "{"))
        opened.append(true)
        try body(&self)
        opened.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    /// Writes an array whose elements `body` writes, each after ``element()``.
    package mutating func array<Failure: Error>(_ body: (inout SyncJSONWriter) throws(Failure) -> Void) throws(Failure) {
        bytes.append(UInt8(ascii: "["))
        opened.append(true)
        try body(&self)
        opened.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    /// Starts an object's member: its key; its value follows.
    package mutating func key(_ name: String) {
        separate()
        string(name)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Starts an array's element.
    package mutating func element() {
        separate()
    }

    /// Writes an object of `dictionary`'s members in the order of their keys, each value by `value`.
    package mutating func dictionary<Value, Failure: Error>(
        _ dictionary: [String: Value], _ value: (inout SyncJSONWriter, Value) throws(Failure) -> Void
    ) throws(Failure) {
        try object { writer throws(Failure) in
            for (key, item) in dictionary.sorted(by: { $0.key < $1.key }) {
                writer.key(key)
                try value(&writer, item)
            }
        }
    }

    /// Writes JSON text as it is: a fragment this process wrote, or read from where it was written.
    package mutating func fragment(_ json: String) {
        bytes.append(contentsOf: json.utf8)
    }

    private mutating func separate() {
        guard let isFirst = opened.last else { return }
        if isFirst {
            opened[opened.count - 1] = false
        } else {
            bytes.append(UInt8(ascii: ","))
        }
    }

    // MARK: Values

    /// Writes `null`.
    package mutating func null() {
        bytes.append(contentsOf: "null".utf8)
    }

    /// Writes `true` or `false`.
    package mutating func bool(_ value: Bool) {
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
    }

    /// Writes an integer.
    package mutating func integer(_ value: some BinaryInteger) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Writes a finite number in the shortest form that reads back to the same bits.
    package mutating func double(_ value: Double) {
        bytes.append(contentsOf: value.description.utf8)
    }

    /// Writes a string, escaping quotes, backslashes and control characters.
    package mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
            case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
            case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                bytes.append(contentsOf: #"\u00"#.utf8)
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
