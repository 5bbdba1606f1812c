/// A decoder of raw DEFLATE data (RFC 1951: no zlib or gzip header), as Core Data compresses the
/// model it caches in a store (`Z_MODELCACHE`). Small inputs, read once: clarity over speed.
package enum Inflate {
    /// Why data could not be inflated.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// The bytes `data` inflates to.
    ///
    /// - Parameter limit: The most bytes to produce; longer output throws, so that a hostile
    ///   input cannot exhaust memory.
    package static func decompress(_ data: [UInt8], limit: Int = 64 << 20) throws(Failure) -> [UInt8] {
        var reader = BitReader(data)
        var output: [UInt8] = []
        var isLast = false
        while !isLast {
            isLast = try reader.bits(1) == 1
            switch try reader.bits(2) {
            case 0: try storedBlock(&reader, into: &output)
            case 1: try huffmanBlock(&reader, literals: fixedLiterals, distances: fixedDistances, into: &output, limit: limit)
            case 2:
                let (literals, distances) = try dynamicTables(&reader)
                try huffmanBlock(&reader, literals: literals, distances: distances, into: &output, limit: limit)
            default: throw Failure(description: "a block of the reserved type 3")
            }
            guard output.count <= limit else { throw Failure(description: "more than \(limit) bytes") }
        }
        return output
    }

    // MARK: Blocks

    private static func storedBlock(_ reader: inout BitReader, into output: inout [UInt8]) throws(Failure) {
        reader.alignToByte()
        let length = try reader.bits(16), complement = try reader.bits(16)
        guard length == ~complement & 0xFFFF else { throw Failure(description: "a stored block whose length does not match its complement") }
        output += try reader.bytes(length)
    }

    private static let lengthBase: [Int] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    private static let lengthExtra: [Int] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distanceBase: [Int] = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    private static let distanceExtra: [Int] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    private static func huffmanBlock(
        _ reader: inout BitReader, literals: Huffman, distances: Huffman, into output: inout [UInt8], limit: Int
    ) throws(Failure) {
        while true {
            let symbol = try literals.decode(&reader)
            if symbol < 256 {
                output.append(UInt8(symbol))
            } else if symbol == 256 {
                return
            } else {
                let index = symbol - 257
                guard index < lengthBase.count else { throw Failure(description: "the length code \(symbol)") }
                let length = lengthBase[index] + (try reader.bits(lengthExtra[index]))
                let code = try distances.decode(&reader)
                guard code < distanceBase.count else { throw Failure(description: "the distance code \(code)") }
                let distance = distanceBase[code] + (try reader.bits(distanceExtra[code]))
                guard distance <= output.count else { throw Failure(description: "a distance of \(distance) before the start") }
                guard output.count + length <= limit else { throw Failure(description: "more than \(limit) bytes") }
                let start = output.count - distance
                for offset in 0..<length { output.append(output[start + offset]) }
            }
        }
    }

    private static let fixedLiterals = Huffman(lengths: Array(repeating: 8, count: 144) + Array(repeating: 9, count: 112)
        + Array(repeating: 7, count: 24) + Array(repeating: 8, count: 8))
    private static let fixedDistances = Huffman(lengths: Array(repeating: 5, count: 30))

    /// The order in which a dynamic block lists the code lengths of the code-length alphabet.
    private static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    private static func dynamicTables(_ reader: inout BitReader) throws(Failure) -> (Huffman, Huffman) {
        let literalCount = try reader.bits(5) + 257, distanceCount = try reader.bits(5) + 1, codeLengthCount = try reader.bits(4) + 4
        guard literalCount <= 286, distanceCount <= 30 else { throw Failure(description: "a dynamic block with too many codes") }
        var codeLengthLengths = [Int](repeating: 0, count: 19)
        for index in 0..<codeLengthCount { codeLengthLengths[codeLengthOrder[index]] = try reader.bits(3) }
        let codeLengths = Huffman(lengths: codeLengthLengths)
        var lengths: [Int] = []
        while lengths.count < literalCount + distanceCount {
            let symbol = try codeLengths.decode(&reader)
            switch symbol {
            case 0...15: lengths.append(symbol)
            case 16:
                guard let previous = lengths.last else { throw Failure(description: "a repeat with nothing before it") }
                lengths += Array(repeating: previous, count: 3 + (try reader.bits(2)))
            case 17: lengths += Array(repeating: 0, count: 3 + (try reader.bits(3)))
            default: lengths += Array(repeating: 0, count: 11 + (try reader.bits(7)))
            }
        }
        guard lengths.count == literalCount + distanceCount else { throw Failure(description: "code lengths past the end of the table") }
        guard lengths[256] > 0 else { throw Failure(description: "a dynamic block without an end-of-block code") }
        return (Huffman(lengths: Array(lengths[..<literalCount])), Huffman(lengths: Array(lengths[literalCount...])))
    }

    // MARK: Codes and bits

    /// A canonical Huffman code, decoded bit by bit (RFC 1951 3.2.2).
    private struct Huffman {
        /// How many codes have each length, 0...15.
        var counts = [Int](repeating: 0, count: 16)
        /// The symbols in code order.
        var symbols: [Int] = []

        init(lengths: [Int]) {
            for length in lengths { counts[length] += 1 }
            counts[0] = 0
            var offsets = [Int](repeating: 0, count: 16)
            for length in 1..<16 { offsets[length] = offsets[length - 1] + counts[length - 1] }
            symbols = [Int](repeating: 0, count: lengths.count)
            for (symbol, length) in lengths.enumerated() where length > 0 {
                symbols[offsets[length]] = symbol
                offsets[length] += 1
            }
        }

        func decode(_ reader: inout BitReader) throws(Failure) -> Int {
            var code = 0, first = 0, index = 0
            for length in 1..<16 {
                code |= try reader.bits(1)
                let count = counts[length]
                if code - first < count { return symbols[index + code - first] }
                index += count
                first = (first + count) << 1
                code <<= 1
            }
            throw Failure(description: "a code that is in no table")
        }
    }

    /// Bits read least significant first, as DEFLATE packs them.
    private struct BitReader {
        let bytes: [UInt8]
        var position = 0
        var buffer = 0
        var available = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        mutating func bits(_ count: Int) throws(Failure) -> Int {
            while available < count {
                guard position < bytes.count else { throw Failure(description: "the data ends in the middle of a block") }
                buffer |= Int(bytes[position]) << available
                position += 1
                available += 8
            }
            let value = buffer & ((1 << count) - 1)
            buffer >>= count
            available -= count
            return value
        }

        mutating func alignToByte() {
            buffer = 0
            available = 0
        }

        mutating func bytes(_ count: Int) throws(Failure) -> [UInt8] {
            guard position + count <= bytes.count else { throw Failure(description: "a stored block past the end of the data") }
            defer { position += count }
            return Array(bytes[position..<position + count])
        }
    }
}
