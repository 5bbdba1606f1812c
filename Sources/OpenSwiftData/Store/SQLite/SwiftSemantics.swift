import CSQLite

/// SQL functions and a collation that give SQLite Swift's string semantics.
///
/// Text is stored exactly as the app gave it. Swift compares strings by canonical equivalence and
/// matches `contains`/`starts(with:)` by Characters; SQLite compares bytes. For ASCII text without
/// carriage returns the two agree, so every function takes a byte fast path there and builds Swift
/// strings only for other text:
/// - collation `OSD`: Swift's `==` and the scalar order of NFC forms (comparisons and ORDER BY on text);
/// - collations `OSD_LOCALIZED_STANDARD`, `OSD_LOCALIZED`: `localizedStandardCompare(_:)` and
///   `localizedCompare(_:)`, for sort descriptors with a ``LocalizedStringComparator``;
/// - `osd_contains(a, b)`, `osd_starts(a, b)`: `a.contains(b)`, `a.starts(with: b)`;
/// - `osd_count(a)`: `a.count` (Characters);
/// - `osd_lsc(a, b)`: `a.localizedStandardContains(b)`;
/// - `osd_cic(a, b)`, `osd_lc(a, b)`: `caseInsensitiveCompare`/`localizedCompare` as −1, 0, 1.
enum SwiftSemantics {
    static let collationName = "OSD"

    /// The collation of a locale-aware string order.
    static func collationName(for comparator: LocalizedStringComparator) -> String {
        switch comparator {
        case .localizedStandard: "OSD_LOCALIZED_STANDARD"
        case .localized: "OSD_LOCALIZED"
        }
    }

    static func register(on db: OpaquePointer) {
        sqlite3_create_collation_v2(db, collationName, SQLITE_UTF8, nil, compareCallback, nil)
        sqlite3_create_collation_v2(db, collationName(for: .localizedStandard), SQLITE_UTF8, nil, localizedStandardOrderCallback, nil)
        sqlite3_create_collation_v2(db, collationName(for: .localized), SQLITE_UTF8, nil, localizedOrderCallback, nil)
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        sqlite3_create_function_v2(db, "osd_contains", 2, flags, nil, containsCallback, nil, nil, nil)
        sqlite3_create_function_v2(db, "osd_starts", 2, flags, nil, startsCallback, nil, nil, nil)
        sqlite3_create_function_v2(db, "osd_count", 1, flags, nil, countCallback, nil, nil, nil)
        sqlite3_create_function_v2(db, "osd_lsc", 2, flags, nil, localizedStandardContainsCallback, nil, nil, nil)
        sqlite3_create_function_v2(db, "osd_cic", 2, flags, nil, caseInsensitiveCompareCallback, nil, nil, nil)
        sqlite3_create_function_v2(db, "osd_lc", 2, flags, nil, localizedCompareCallback, nil, nil, nil)
    }

    /// Whether byte-wise text operations agree with Swift's Character semantics for these bytes.
    static func isSimple(_ bytes: UnsafeRawBufferPointer) -> Bool {
        for byte in bytes where byte >= 0x80 || byte == 0x0D { return false }
        return true
    }

    /// Whether `haystack` contains `needle` as a byte sequence.
    static func bytes(_ haystack: UnsafeRawBufferPointer, contain needle: UnsafeRawBufferPointer) -> Bool {
        let first = needle[0]
        var start = 0
        let last = haystack.count - needle.count
        while start <= last {
            if haystack[start] == first,
               memcmp(haystack.baseAddress! + start, needle.baseAddress!, needle.count) == 0 {
                return true
            }
            start += 1
        }
        return false
    }

    /// Swift's order of two UTF-8 texts: canonically equivalent texts are equal, others order by
    /// the Unicode scalars of their NFC forms (as the UTF-8 bytes of those forms order).
    ///
    /// Only the part from the last ASCII character before the first differing byte is normalized:
    /// no composition crosses an ASCII character (it is a starter, and none composes with a
    /// preceding character), so NFC(prefix + rest) = NFC(prefix) + NFC(rest) there. When the
    /// differing characters are ASCII and followed by ASCII (or the end), they decide alone.
    static func compare(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int32 {
        let common = min(lhs.count, rhs.count)
        var index = 0
        if common > 0 {
            let left = lhs.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let right = rhs.baseAddress!.assumingMemoryBound(to: UInt8.self)
            while index < common && left[index] == right[index] { index += 1 }
        }
        if index == common && lhs.count == rhs.count { return 0 }
        let leftByte: UInt8? = index < lhs.count ? lhs[index] : nil
        let rightByte: UInt8? = index < rhs.count ? rhs[index] : nil
        func isASCII(_ byte: UInt8?) -> Bool { byte.map { $0 < 0x80 } ?? true }
        func standsAlone(_ bytes: UnsafeRawBufferPointer) -> Bool { index + 1 >= bytes.count || bytes[index + 1] < 0x80 }
        if isASCII(leftByte) && isASCII(rightByte) && standsAlone(lhs) && standsAlone(rhs) {
            // An ASCII character followed by ASCII (or the end) is its own NFC form; the end of a
            // text before such a character makes the text a prefix of the other's NFC form.
            switch (leftByte, rightByte) {
            case (let left?, let right?): return left < right ? -1 : 1
            case (nil, _): return -1
            default: return 1
            }
        }
        // The last ASCII character at or before the difference: a boundary composition respects.
        // (Before `index` the texts are the same bytes.)
        var start = index
        if !(index < common && leftByte! < 0x80 && rightByte! < 0x80) {
            repeat { start -= 1 } while start >= 0 && lhs[start] >= 0x80
            start = max(start, 0)
        }
        return normalizedOrder(UnsafeRawBufferPointer(rebasing: lhs[start...]), UnsafeRawBufferPointer(rebasing: rhs[start...]))
    }

    /// The order of the NFC forms of two UTF-8 texts, by their UTF-8 bytes.
    ///
    /// (String's own `<` is not transitive for some singleton decompositions, such as U+212A
    /// KELVIN SIGN; comparing NFC bytes gives the same answer wherever `<` is consistent.)
    static func normalizedOrder(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int32 {
        let a = String(decoding: lhs, as: UTF8.self).precomposedStringWithCanonicalMapping.utf8
        let b = String(decoding: rhs, as: UTF8.self).precomposedStringWithCanonicalMapping.utf8
        return a.elementsEqual(b) ? 0 : (a.lexicographicallyPrecedes(b) ? -1 : 1)
    }

    /// The order of two texts by a locale-aware comparator, as Swift computes it for the same
    /// sort descriptor.
    static func compare(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer, by comparator: LocalizedStringComparator) -> Int32 {
        Int32(comparator.compare(String(decoding: lhs, as: UTF8.self), String(decoding: rhs, as: UTF8.self)).rawValue)
    }
}

private let compareCallback: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = {
    _, lhsCount, lhs, rhsCount, rhs in
    SwiftSemantics.compare(UnsafeRawBufferPointer(start: lhs, count: Int(lhsCount)),
                           UnsafeRawBufferPointer(start: rhs, count: Int(rhsCount)))
}

private let localizedStandardOrderCallback: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = {
    _, lhsCount, lhs, rhsCount, rhs in
    SwiftSemantics.compare(UnsafeRawBufferPointer(start: lhs, count: Int(lhsCount)),
                           UnsafeRawBufferPointer(start: rhs, count: Int(rhsCount)), by: .localizedStandard)
}

private let localizedOrderCallback: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = {
    _, lhsCount, lhs, rhsCount, rhs in
    SwiftSemantics.compare(UnsafeRawBufferPointer(start: lhs, count: Int(lhsCount)),
                           UnsafeRawBufferPointer(start: rhs, count: Int(rhsCount)), by: .localized)
}

private typealias SQLFunction = @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void

private func textArgument(_ arguments: UnsafeMutablePointer<OpaquePointer?>?, _ index: Int) -> UnsafeRawBufferPointer? {
    guard let value = arguments?[index], sqlite3_value_type(value) != SQLITE_NULL else { return nil }
    let text = sqlite3_value_text(value)
    let count = Int(sqlite3_value_bytes(value))
    return UnsafeRawBufferPointer(start: text, count: text == nil ? 0 : count)
}

/// Calls `body` with both text arguments, or returns NULL when either is NULL.
private func binary(_ context: OpaquePointer?, _ arguments: UnsafeMutablePointer<OpaquePointer?>?,
                    _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Int64) {
    guard let lhs = textArgument(arguments, 0), let rhs = textArgument(arguments, 1) else {
        sqlite3_result_null(context)
        return
    }
    sqlite3_result_int64(context, body(lhs, rhs))
}

private func string(_ bytes: UnsafeRawBufferPointer) -> String { String(decoding: bytes, as: UTF8.self) }

/// `Collection.contains(_:)` by Characters, as `#Predicate`'s node evaluates it (a generic context,
/// so Foundation's NSString-based `StringProtocol.contains` is not chosen).
private func characters<C: Collection>(of base: C, contain other: C) -> Bool where C.Element: Equatable {
    base.contains(other)
}

/// `Sequence.starts(with:)` by Characters, as `#Predicate`'s node evaluates it.
private func characters<C: Collection>(of base: C, startWith prefix: C) -> Bool where C.Element: Equatable {
    base.starts(with: prefix)
}

private func comparisonValue(_ result: ComparisonResult) -> Int64 { Int64(result.rawValue) }

private let containsCallback: SQLFunction = { context, _, arguments in
    binary(context, arguments) { lhs, rhs in
        if rhs.isEmpty { return 1 }
        if SwiftSemantics.isSimple(lhs) && SwiftSemantics.isSimple(rhs) {
            guard rhs.count <= lhs.count else { return 0 }
            return SwiftSemantics.bytes(lhs, contain: rhs) ? 1 : 0
        }
        return characters(of: string(lhs), contain: string(rhs)) ? 1 : 0
    }
}

private let startsCallback: SQLFunction = { context, _, arguments in
    binary(context, arguments) { lhs, rhs in
        if rhs.isEmpty { return 1 }
        if SwiftSemantics.isSimple(lhs) && SwiftSemantics.isSimple(rhs) {
            guard rhs.count <= lhs.count else { return 0 }
            return memcmp(lhs.baseAddress!, rhs.baseAddress!, rhs.count) == 0 ? 1 : 0
        }
        return characters(of: string(lhs), startWith: string(rhs)) ? 1 : 0
    }
}

private let countCallback: SQLFunction = { context, _, arguments in
    guard let text = textArgument(arguments, 0) else {
        sqlite3_result_null(context)
        return
    }
    sqlite3_result_int64(context, Int64(SwiftSemantics.isSimple(text) ? text.count : string(text).count))
}

private let localizedStandardContainsCallback: SQLFunction = { context, _, arguments in
    binary(context, arguments) { string($0).localizedStandardContains(string($1)) ? 1 : 0 }
}

private let caseInsensitiveCompareCallback: SQLFunction = { context, _, arguments in
    binary(context, arguments) { comparisonValue(string($0).caseInsensitiveCompare(string($1))) }
}

private let localizedCompareCallback: SQLFunction = { context, _, arguments in
    binary(context, arguments) { comparisonValue(string($0).localizedCompare(string($1))) }
}
