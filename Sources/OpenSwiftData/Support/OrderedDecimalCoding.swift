/// Encodes `Decimal` values as bytes whose lexicographic (memcmp) order is the numeric order, so that
/// SQL comparisons and ORDER BY on the BLOB column are exact.
///
/// Layout: a sign byte (0x00 negative, 0x01 zero, 0x02 positive); for non-zero values the adjusted
/// exponent E (value = 0.d₁d₂… × 10^E) as two big-endian bytes offset by 0x8000, then one byte per
/// significant digit. Negative values complement the exponent and the digits (9 − d) and end with
/// 0xFF, so that a longer magnitude sorts first. Equal values have equal bytes (trailing zeros are
/// dropped), so `==` is a byte comparison too.
///
/// NaN is the single byte 0x00, a prefix of every negative value, so it sorts before all of them:
/// Foundation orders a `Decimal` NaN before every number (`Decimal.nan < -1` is true) and equal to
/// itself. Stores written before this was so hold NaN as 0x03 (after every number); it still
/// decodes, and opening such a store for saving rewrites it (``legacyNaN``).
enum OrderedDecimalCoding {
    /// How NaN was written before it sorted first.
    static let legacyNaN: UInt8 = 0x03

    static func encode(_ value: Decimal) -> [UInt8] {
        if value.isNaN { return [0x00] }
        if value.isZero { return [0x01] }
        var digits = Array(digitsOfSignificand(value))
        var exponent = Int(value.exponent)
        while digits.count > 1, digits.last == 0 {
            digits.removeLast()
            exponent += 1
        }
        let adjusted = exponent + digits.count
        let negative = value.sign == .minus
        let biased = UInt16(clamping: adjusted + 0x8000)
        let exponentBits = negative ? ~biased : biased
        var bytes: [UInt8] = [negative ? 0x00 : 0x02, UInt8(exponentBits >> 8), UInt8(exponentBits & 0xFF)]
        bytes.append(contentsOf: digits.map { negative ? 9 - $0 : $0 })
        if negative { bytes.append(0xFF) }
        return bytes
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) -> Decimal? {
        guard let first = bytes.first else { return nil }
        switch first {
        case 0x00 where bytes.count == 1: return .nan
        case 0x01: return 0
        case legacyNaN: return .nan
        case 0x00, 0x02: break
        default: return nil
        }
        guard bytes.count >= 4 else { return nil }
        let negative = first == 0x00
        var exponentBits = UInt16(bytes[1]) << 8 | UInt16(bytes[2])
        if negative { exponentBits = ~exponentBits }
        let adjusted = Int(exponentBits) - 0x8000
        var digits = Array(bytes[3...])
        if negative {
            guard digits.last == 0xFF else { return nil }
            digits.removeLast()
            digits = digits.map { 9 - $0 }
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0 <= 9 }) else { return nil }
        let text = String(decoding: digits.map { $0 + 48 }, as: UTF8.self)
        guard let significand = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { return nil }
        let magnitude = Decimal(sign: .plus, exponent: adjusted - digits.count, significand: significand)
        return negative ? -magnitude : magnitude
    }

    /// The decimal digits of the value's integer significand, most significant first.
    private static func digitsOfSignificand(_ value: Decimal) -> [UInt8] {
        var significand = value.significand
        if significand.sign == .minus { significand = -significand }
        let text = "\(significand)"
        return text.utf8.compactMap { $0 >= 48 && $0 <= 57 ? $0 - 48 : nil }
    }
}
