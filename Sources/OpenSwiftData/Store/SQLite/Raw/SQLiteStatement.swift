import CSQLite

/// The store's own name for ``_SQLiteStatement``.
typealias SQLiteStatement = _SQLiteStatement

/// One prepared SQLite statement, the owner of an `sqlite3_stmt*`.
///
/// It is the row reader and parameter writer that ``Model()``-generated code uses, so that values
/// go straight between typed model storage and SQLite's C API. Generated code names this concrete
/// type, so that the compiler specializes every read and write for it; only the underscored
/// row-coding members are public, and they are not API: the type is underscored so that it stays
/// out of users' completions, and the store's own code calls it `SQLiteStatement`. Parameters and
/// columns are 0-based here; SQLite's parameters are 1-based, and the translation happens in this
/// file only.
public final class _SQLiteStatement: _RowReader, _RowWriter {
    let handle: OpaquePointer
    let sql: String
    unowned let connection: SQLiteConnection
    /// The model and property being decoded, for error messages.
    public var _context: (model: String, property: String)?
    /// Per-parameter copies of bound text (see `_bind(_:_:)`), freed with the statement. A
    /// constant pointer, so that reaching a buffer needs no exclusivity check.
    private let textBuffers: UnsafeMutableBufferPointer<UnsafeMutableRawBufferPointer>
    /// Longer text is copied by SQLite instead, so that no statement keeps a large buffer.
    private static let largestBufferedText = 4_096
    /// When the connection's ``StatementCache`` last handed the statement out.
    @exclusivity(unchecked) var lastUse: UInt64 = 0
    /// The bytes the connection's ``StatementCache`` counts for the statement while it keeps it.
    @exclusivity(unchecked) var cachedBytes = 0

    init(connection: SQLiteConnection, sql: String, persistent: Bool) throws {
        var statement: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let code = sqlite3_prepare_v3(connection.handle, sql, -1, flags, &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw SQLiteError(code: sqlite3_extended_errcode(connection.handle), message: connection.lastErrorMessage, sql: sql)
        }
        self.handle = statement
        self.sql = sql
        self.connection = connection
        textBuffers = .allocate(capacity: Int(sqlite3_bind_parameter_count(statement)))
        textBuffers.initialize(repeating: UnsafeMutableRawBufferPointer(start: nil, count: 0))
    }

    deinit {
        sqlite3_finalize(handle)
        for buffer in textBuffers { buffer.deallocate() }
        textBuffers.deallocate()
    }

    /// Whether the statement has a parameter at the (0-based) index.
    public func _hasParameter(_ column: Int32) -> Bool { column < sqlite3_bind_parameter_count(handle) }

    /// The bytes SQLite uses for the prepared statement.
    var memoryUsed: Int { Int(sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_MEMUSED, 0)) }

    /// Whether the statement has started stepping through rows and not been reset since.
    var isBusy: Bool { sqlite3_stmt_busy(handle) != 0 }

    /// Resets the statement and clears its bindings.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Resets the statement and keeps its bindings: for a statement whose next use binds every
    /// parameter again (the rows of one table that a save inserts), where clearing them first
    /// would be wasted work.
    func resetKeepingBindings() {
        sqlite3_reset(handle)
    }

    /// Advances to the next row. Returns `false` when the statement is done.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        let error = SQLiteError(code: sqlite3_extended_errcode(connection.handle), message: connection.lastErrorMessage, sql: sql)
        sqlite3_reset(handle)
        throw error
    }

    /// Runs the statement to completion, ignoring rows.
    func run() throws {
        while try step() {}
    }

    /// Binds captured query values, in order.
    func bind(_ values: [StoredValue]) throws {
        for (index, value) in values.enumerated() {
            try bind(value, Int32(index))
        }
    }

    func bind(_ value: StoredValue, _ column: Int32) throws {
        switch value {
        case .null: try _bindNull(column)
        case .integer(let number): try _bind(number, column)
        case .real(let number): try _bind(number, column)
        case .text(let text): try _bind(text, column)
        case .blob(let bytes): try bytes.withUnsafeBytes { try _bind(bytes: $0, column) }
        }
    }

    /// The column as a query value.
    func value(_ column: Int32) -> StoredValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: .integer(_int64(column))
        case SQLITE_FLOAT: .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT: .text(_string(column))
        case SQLITE_BLOB: .blob(_withBytes(column) { Array($0) })
        default: .null
        }
    }

    // MARK: _RowReader

    public func _isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    public func _int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    public func _double(_ column: Int32) throws -> Double {
        // The column's value is looked up once, for its type and its number (each
        // `sqlite3_column_…` call looks it up again). SQLite hands it out unprotected, which is
        // safe because one thread at a time uses a statement.
        let value = sqlite3_column_value(handle, column)
        switch sqlite3_value_type(value) {
        case SQLITE_FLOAT, SQLITE_INTEGER, SQLITE_NULL:
            return sqlite3_value_double(value)
        case SQLITE_BLOB:
            // NaN is stored as its bit pattern (SQLite would turn it into NULL).
            return try _withBytes(column) { bytes in
                guard bytes.count == 8 else {
                    throw ValueCodingError.undecodable(context: _context, underlying: "a \(bytes.count)-byte BLOB is no number")
                }
                return Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)))
            }
        default:
            // Text, which SQLite would read as the number its longest numeric prefix spells.
            throw ValueCodingError.undecodable(context: _context, underlying: "the text '\(_string(column).prefix(40))' is no number")
        }
    }

    public func _string(_ column: Int32) -> String {
        // One look-up of the column's value for its text and its length (see `_double`); the
        // length is asked after the text, which converts the value to UTF-8 first.
        let value = sqlite3_column_value(handle, column)
        guard let text = sqlite3_value_text(value) else { return "" }
        let count = Int(sqlite3_value_bytes(value))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    public func _withBytes<R>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let pointer = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return try body(UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : count))
    }

    // MARK: _RowWriter

    public func _bindNull(_ column: Int32) throws {
        try check(sqlite3_bind_null(handle, column + 1))
    }

    public func _bind(_ value: Int64, _ column: Int32) throws {
        try check(sqlite3_bind_int64(handle, column + 1, value))
    }

    public func _bind(_ value: Double, _ column: Int32) throws {
        try check(sqlite3_bind_double(handle, column + 1, value))
    }

    public func _bind(_ value: String, _ column: Int32) throws {
        var value = value
        let code = value.withUTF8 { utf8 -> Int32 in
            guard let base = utf8.baseAddress, utf8.count > 0 else {
                return sqlite3_bind_text(handle, column + 1, "", 0, osd_sqlite_static())
            }
            guard let buffer = textBuffer(for: column, count: utf8.count) else {
                return sqlite3_bind_text(handle, column + 1, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self),
                                         Int32(utf8.count), osd_sqlite_transient())
            }
            // The parameter keeps pointing into this statement's own buffer until it is bound
            // again, so SQLite need not copy the text (SQLITE_STATIC).
            buffer.copyMemory(from: UnsafeRawBufferPointer(utf8))
            return sqlite3_bind_text(handle, column + 1, buffer.baseAddress!.assumingMemoryBound(to: CChar.self),
                                     Int32(utf8.count), osd_sqlite_static())
        }
        try check(code)
    }

    /// The reusable text buffer of one parameter, at least `count` bytes long, or `nil` for text
    /// too long to keep a copy of.
    private func textBuffer(for column: Int32, count: Int) -> UnsafeMutableRawBufferPointer? {
        let index = Int(column)
        guard count <= Self.largestBufferedText, index < textBuffers.count else { return nil }
        if textBuffers[index].count < count {
            textBuffers[index].deallocate()
            textBuffers[index] = .allocate(byteCount: max(count, 64), alignment: 1)
        }
        return textBuffers[index]
    }

    public func _bind(bytes: UnsafeRawBufferPointer, _ column: Int32) throws {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            try check(sqlite3_bind_zeroblob(handle, column + 1, 0))
            return
        }
        try check(sqlite3_bind_blob(handle, column + 1, base, Int32(bytes.count), osd_sqlite_transient()))
    }

    private func check(_ code: Int32) throws {
        if code != SQLITE_OK { try connection.check(code, sql: sql) }
    }
}

