/// The key of a connection's statement cache: an SQL text, hashed cheaply.
///
/// The standard `String` hash runs SipHash over every byte, which for a 200-byte `INSERT` costs more
/// than the statement's own step in a one-row save. This key folds the text's UTF-8 eight bytes at a
/// time into one word and hashes that; equality still compares the whole text (and two keys made
/// from the same stored string compare by identity first).
struct CachedSQL: Hashable {
    let sql: String

    init(_ sql: String) { self.sql = sql }

    static func == (lhs: CachedSQL, rhs: CachedSQL) -> Bool { lhs.sql == rhs.sql }

    func hash(into hasher: inout Hasher) {
        let folded = sql.utf8.withContiguousStorageIfAvailable { bytes -> UInt64 in
            let raw = UnsafeRawBufferPointer(bytes)
            var word = UInt64(raw.count)
            var offset = 0
            while offset + 8 <= raw.count {
                word = (word ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
                offset += 8
            }
            while offset < raw.count {
                word = (word ^ UInt64(raw[offset])) &* 0x9E37_79B9_7F4A_7C15
                offset += 1
            }
            return word
        }
        if let folded { hasher.combine(folded) } else { hasher.combine(sql) }
    }
}
