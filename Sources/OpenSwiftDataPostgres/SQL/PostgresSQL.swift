import OpenSwiftData
import PostgresNIO

/// Small helpers for writing PostgreSQL text.
enum PostgresSQL {
    /// The most parameters one statement can have (the protocol counts them in 16 bits).
    static let maximumParameters = 65_535

    /// Whether PostgreSQL text can hold `text`: every character but U+0000.
    static func canHold(_ text: String) -> Bool { !text.utf8.contains(0) }

    /// Quotes an identifier.
    static func quote(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Quotes a string literal.
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// The column type of a storage class. Text compares byte-wise (`COLLATE "C"`); queries
    /// compare NFC forms to get Swift's semantics.
    static func columnType(_ storage: StorageClass) -> String {
        switch storage {
        case .integer, .unsignedInteger: "BIGINT"
        case .real, .date: "DOUBLE PRECISION"
        case .text: "TEXT COLLATE \"C\""
        case .json: "TEXT"
        case .blob, .uuid, .decimal: "BYTEA"
        }
    }

    /// The type a parameter of a storage class is cast to.
    static func parameterType(_ storage: StorageClass) -> String {
        switch parameterDataType(storage) {
        case .int8: "int8"
        case .float8: "float8"
        case .bytea: "bytea"
        default: "text"
        }
    }

    /// The type of the values a parameter of `storage` carries (``parameterType(_:)`` names it).
    static func parameterDataType(_ storage: StorageClass) -> PostgresDataType {
        switch storage {
        case .integer, .unsignedInteger: .int8
        case .real, .date: .float8
        case .text, .json: .text
        case .blob, .uuid, .decimal: .bytea
        }
    }

    /// The types of the values the store reads as `storage`'s, the one it writes first: the
    /// column's type, or `varchar`, which holds text as `text` does.
    static func readableDataTypes(_ storage: StorageClass) -> [PostgresDataType] {
        switch storage {
        case .integer, .unsignedInteger: [.int8]
        case .real, .date: [.float8]
        case .text, .json: [.text, .varchar]
        case .blob, .uuid, .decimal: [.bytea]
        }
    }

    /// Text in the form Swift compares: canonical equivalence, then the scalar order of NFC.
    static func swiftText(_ sql: String) -> String {
        "normalize((\(sql))::text, NFC) COLLATE \"C\""
    }

    /// The primary-key column of every table.
    static let primaryKey = "\"_pk\""

    /// An `int8[]` argument of a prepared statement, in PostgreSQL's binary form for arrays,
    /// written in one buffer: a header (one dimension, no `NULL`s, the element type, the length,
    /// the lower bound 1), then each element's length (8) and value.
    static func int8Array(_ values: [Int64]) -> PostgresData {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(20 + values.count * 12)
        buffer.writeInteger(Int32(1))
        buffer.writeInteger(Int32(0))
        buffer.writeInteger(PostgresDataType.int8.rawValue)
        buffer.writeInteger(Int32(truncatingIfNeeded: values.count))
        buffer.writeInteger(Int32(1))
        for value in values {
            buffer.writeInteger(Int32(8))
            buffer.writeInteger(value)
        }
        return PostgresData(type: .int8Array, value: buffer)
    }
}
