import Foundation

/// A value of a binary property list (`bplist00`), as Apple's frameworks write them: what a keyed
/// archive (``KeyedArchive``) is made of.
package indirect enum PropertyListValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    case date(Date)
    case data([UInt8])
    case string(String)
    /// A keyed archive's reference to one of its objects (`CF$UID`).
    case uid(Int)
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])

    /// The dictionary's value for `key`, or `nil` for another kind of value.
    package subscript(key: String) -> PropertyListValue? {
        if case .dictionary(let entries) = self { return entries[key] }
        return nil
    }

    package var string: String? { if case .string(let text) = self { text } else { nil } }
    package var integer: Int64? { if case .integer(let number) = self { number } else { nil } }
    package var bool: Bool? {
        switch self {
        case .bool(let flag): flag
        case .integer(let number): number != 0
        default: nil
        }
    }
    package var array: [PropertyListValue]? { if case .array(let items) = self { items } else { nil } }
    package var uid: Int? { if case .uid(let index) = self { index } else { nil } }
}

/// A reader of binary property lists: the header, the object table, the offset table and the
/// trailer. Every offset and count is checked against the data, so a damaged or hostile list
/// throws rather than reading out of bounds or recursing without end.
package struct BinaryPropertyList {
    /// Why a property list could not be read.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    private let bytes: [UInt8]
    private let offsets: [Int]
    private let referenceSize: Int

    /// The top object of the list in `bytes`.
    package static func parse(_ bytes: [UInt8]) throws(Failure) -> PropertyListValue {
        let list = try BinaryPropertyList(bytes)
        var walk = Walk()
        return try list.object(list.top, walk: &walk)
    }

    private let top: Int

    private init(_ bytes: [UInt8]) throws(Failure) {
        guard bytes.count >= 40, Array(bytes[0..<8]) == Array("bplist00".utf8) else { throw Failure(description: "not a binary property list") }
        self.bytes = bytes
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        let count = Self.unsigned(bytes, trailer + 8, 8), topObject = Self.unsigned(bytes, trailer + 16, 8)
        let table = Self.unsigned(bytes, trailer + 24, 8)
        // Checked so that no sum below can overflow: every number is first bounded by the data's size.
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize), count > 0, count < bytes.count,
              topObject >= 0, topObject < count, table >= 8, table < trailer, count <= (trailer - table) / offsetSize
        else { throw Failure(description: "a damaged trailer") }
        offsets = (0..<count).map { Self.unsigned(bytes, table + $0 * offsetSize, offsetSize) }
        guard offsets.allSatisfy({ $0 >= 8 && $0 < table }) else { throw Failure(description: "an object offset outside the object table") }
        top = topObject
    }

    private static func unsigned(_ bytes: [UInt8], _ start: Int, _ size: Int) -> Int {
        var value = 0
        for index in start..<start + size { value = value << 8 | Int(bytes[index]) }
        return value
    }

    private func byte(_ position: Int) throws(Failure) -> UInt8 {
        guard position >= 0, position < bytes.count else { throw Failure(description: "an object past the end of the data") }
        return bytes[position]
    }

    private func slice(_ position: Int, _ count: Int) throws(Failure) -> ArraySlice<UInt8> {
        guard position >= 0, count >= 0, position + count <= bytes.count else { throw Failure(description: "an object past the end of the data") }
        return bytes[position..<position + count]
    }

    /// The length in an object's marker, or the integer that follows it; and where its content starts.
    private func length(_ marker: UInt8, at position: Int) throws(Failure) -> (Int, Int) {
        let small = Int(marker & 0x0F)
        guard small == 0x0F else { return (small, position + 1) }
        let header = try byte(position + 1)
        guard header & 0xF0 == 0x10 else { throw Failure(description: "a length that is not an integer") }
        let size = 1 << Int(header & 0x0F)
        guard size <= 8 else { throw Failure(description: "a length of \(size) bytes") }
        let value = Self.unsigned(bytes, position + 2, min(size, max(0, bytes.count - position - 2)))
        guard value >= 0, value < bytes.count else { throw Failure(description: "a length longer than the data") }
        return (value, position + 2 + size)
    }

    private func references(_ start: Int, _ count: Int) throws(Failure) -> [Int] {
        let data = try slice(start, count * referenceSize)
        return (0..<count).map { Self.unsigned(bytes, data.startIndex + $0 * referenceSize, referenceSize) }
    }

    /// The objects being read, so that one containing itself is refused, and how many values the
    /// walk may still make: objects shared many times over cannot expand without end.
    private struct Walk {
        var visiting = Set<Int>()
        var budget = 1_000_000
    }

    private func object(_ index: Int, walk: inout Walk) throws(Failure) -> PropertyListValue {
        guard index < offsets.count else { throw Failure(description: "a reference to object \(index) of \(offsets.count)") }
        walk.budget -= 1
        guard walk.budget >= 0 else { throw Failure(description: "more values than a property list of this size holds") }
        guard walk.visiting.insert(index).inserted else { throw Failure(description: "an object that contains itself") }
        defer { walk.visiting.remove(index) }
        let position = offsets[index]
        let marker = try byte(position)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x00: return .null
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default: throw Failure(description: "the marker \(marker)")
            }
        case 0x1:
            let size = 1 << Int(marker & 0x0F)
            guard size <= 8 else { throw Failure(description: "an integer of \(size) bytes") }
            let data = try slice(position + 1, size)
            return .integer(Int64(bitPattern: UInt64(truncatingIfNeeded: Self.unsigned(bytes, data.startIndex, size))))
        case 0x2:
            let size = 1 << Int(marker & 0x0F)
            let data = try slice(position + 1, size)
            let bits = UInt64(truncatingIfNeeded: Self.unsigned(bytes, data.startIndex, size))
            switch size {
            case 4: return .real(Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))))
            case 8: return .real(Double(bitPattern: bits))
            default: throw Failure(description: "a real of \(size) bytes")
            }
        case 0x3:
            let data = try slice(position + 1, 8)
            let seconds = Double(bitPattern: UInt64(truncatingIfNeeded: Self.unsigned(bytes, data.startIndex, 8)))
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case 0x4:
            let (count, start) = try length(marker, at: position)
            return .data(Array(try slice(start, count)))
        case 0x5:
            let (count, start) = try length(marker, at: position)
            return .string(String(decoding: try slice(start, count), as: UTF8.self))
        case 0x6:
            let (count, start) = try length(marker, at: position)
            let data = try slice(start, count * 2)
            let units = (0..<count).map { UInt16(data[data.startIndex + 2 * $0]) << 8 | UInt16(data[data.startIndex + 2 * $0 + 1]) }
            return .string(String(decoding: units, as: UTF16.self))
        case 0x8:
            let size = Int(marker & 0x0F) + 1
            let data = try slice(position + 1, size)
            return .uid(Self.unsigned(bytes, data.startIndex, size))
        case 0xA, 0xC:
            let (count, start) = try length(marker, at: position)
            var items: [PropertyListValue] = []
            for reference in try references(start, count) { items.append(try object(reference, walk: &walk)) }
            return .array(items)
        case 0xD:
            let (count, start) = try length(marker, at: position)
            let keys = try references(start, count), values = try references(start + count * referenceSize, count)
            var entries: [String: PropertyListValue] = [:]
            for (key, value) in zip(keys, values) {
                guard case .string(let name) = try object(key, walk: &walk) else { throw Failure(description: "a dictionary key that is not text") }
                entries[name] = try object(value, walk: &walk)
            }
            return .dictionary(entries)
        default:
            throw Failure(description: "the marker \(marker)")
        }
    }
}
