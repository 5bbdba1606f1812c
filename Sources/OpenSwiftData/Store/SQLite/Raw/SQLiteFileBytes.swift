import CSQLite

/// The bytes of a database file, read through SQLite's own file layer.
///
/// A process's locks on a file are POSIX record locks, and closing any descriptor of the file
/// releases every one of them, those SQLite's connections hold included. A store file read with a
/// descriptor of its own, while this process has the store open, would lose those locks: another
/// process's last connection could then take the file for itself as it closes, fold the
/// write-ahead log into the file and delete the log this process's connections go on writing,
/// and their later saves would reach no other process. SQLite keeps a descriptor it closes open
/// while the process holds locks on the file, so the file read through a connection of its own
/// keeps them.
///
/// The connection reads nothing as SQL: the file need not be a database.
final class SQLiteFileBytes {
    private let database: OpaquePointer
    private let file: UnsafeMutablePointer<sqlite3_file>
    private let methods: sqlite3_io_methods
    let path: String

    /// Opens the file at `path` for reading; it must exist.
    init(path: String) throws(SQLiteError) {
        var database: OpaquePointer?
        let code = sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, nil)
        guard code == SQLITE_OK, let database else {
            let message = database.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(database)
            throw SQLiteError(code: code, message: "\(message) (\(path))", sql: nil)
        }
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(database, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK,
              let file, let methods = file.pointee.pMethods?.pointee
        else {
            sqlite3_close_v2(database)
            throw SQLiteError(code: SQLITE_CANTOPEN, message: "SQLite did not open the file (\(path))", sql: nil)
        }
        self.database = database
        self.file = file
        self.methods = methods
        self.path = path
    }

    deinit {
        sqlite3_close_v2(database)
    }

    /// The file's size in bytes.
    func size() throws(SQLiteError) -> Int64 {
        var size: sqlite3_int64 = 0
        let code = methods.xFileSize?(file, &size) ?? SQLITE_IOERR
        guard code == SQLITE_OK else { throw SQLiteError(code: code, message: "The size of \(path) cannot be read", sql: nil) }
        return size
    }

    /// Fills `buffer` with the file's bytes from `offset` on; the file must hold that many.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(SQLiteError) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        let code = methods.xRead?(file, base, Int32(buffer.count), offset) ?? SQLITE_IOERR
        guard code == SQLITE_OK else {
            throw SQLiteError(code: code, message: "\(buffer.count) bytes at \(offset) of \(path) cannot be read", sql: nil)
        }
    }
}
