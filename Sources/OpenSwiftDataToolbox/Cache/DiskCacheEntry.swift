import Crypto
import Foundation

/// One disk-cache entry's file: its key, expiry and contents, with a checksum, so that a file
/// damaged by anything (a power loss, another program) reads as a miss rather than as wrong data.
///
/// Layout, little-endian: the marker `OSDCACH1`, the key's length (UInt32) and UTF-8 bytes, the
/// expiry (Float64 seconds since 1970, 0 for none), the contents' length (UInt64), a checksum
/// of key and contents (UInt64), then the contents.
struct DiskCacheEntry {
    var key: String
    var expiry: Date?
    var contents: Data

    private static let marker = Data("OSDCACH1".utf8)

    /// The entry's file name: a hash of the key that is the same in every process and on every
    /// platform (Swift's own `hashValue` is seeded per process).
    static func fileName(for key: String) -> String {
        SHA256.hash(data: Data(key.utf8)).prefix(16).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    func encoded() -> Data {
        let keyBytes = Data(key.utf8)
        var data = Self.marker
        data.reserveCapacity(data.count + 28 + keyBytes.count + contents.count)
        Self.append(UInt32(keyBytes.count), to: &data)
        data.append(keyBytes)
        Self.append((expiry?.timeIntervalSince1970 ?? 0).bitPattern, to: &data)
        Self.append(UInt64(contents.count), to: &data)
        Self.append(Self.checksum(keyBytes, contents), to: &data)
        data.append(contents)
        return data
    }

    /// Decodes an entry file, or returns `nil` when the file is damaged or not an entry.
    static func decode(_ data: Data) -> DiskCacheEntry? {
        var reader = Reader(data: data)
        guard reader.take(marker.count) == marker,
              let keyLength = reader.integer(UInt32.self),
              let keyBytes = reader.take(Int(keyLength)),
              let key = String(data: keyBytes, encoding: .utf8),
              let expiryBits = reader.integer(UInt64.self),
              let length = reader.integer(UInt64.self),
              let checksum = reader.integer(UInt64.self),
              length == UInt64(reader.remaining),
              let contents = reader.take(Int(length)),
              checksum == Self.checksum(keyBytes, contents)
        else { return nil }
        let seconds = Double(bitPattern: expiryBits)
        return DiskCacheEntry(
            key: key, expiry: seconds == 0 ? nil : Date(timeIntervalSince1970: seconds), contents: Data(contents)
        )
    }

    /// A 64-bit checksum of key and contents, eight bytes at a time: it catches damage, not
    /// tampering.
    private static func checksum(_ key: Data, _ contents: Data) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for part in [key, contents] {
            part.withUnsafeBytes { bytes in
                var offset = 0
                while offset + 8 <= bytes.count {
                    let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                    hash = (hash ^ word) &* 0x0000_0100_0000_01b3
                    hash ^= hash >> 29
                    offset += 8
                }
                while offset < bytes.count {
                    hash = (hash ^ UInt64(bytes[offset])) &* 0x0000_0100_0000_01b3
                    offset += 1
                }
            }
            hash = (hash ^ UInt64(part.count)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    private static func append<Integer: FixedWidthInteger>(_ value: Integer, to data: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }

    private struct Reader {
        let data: Data
        var offset: Int

        init(data: Data) {
            self.data = data
            offset = data.startIndex
        }

        var remaining: Int { data.endIndex - offset }

        mutating func take(_ count: Int) -> Data? {
            guard count >= 0, count <= remaining else { return nil }
            defer { offset += count }
            return data[offset..<offset + count]
        }

        mutating func integer<Integer: FixedWidthInteger>(_: Integer.Type) -> Integer? {
            guard let bytes = take(MemoryLayout<Integer>.size) else { return nil }
            var value = Integer.zero
            for (index, byte) in bytes.enumerated() {
                value |= Integer(byte) << (8 * index)
            }
            return value
        }
    }
}
