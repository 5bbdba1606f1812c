import CSQLite

/// What a read-only look at an existing store file found.
struct StoreFileInspection {
    var format: Int64
    var schema: StoredSchema?
    var identifier: String?

    /// Inspects the file at `path` without modifying it. Returns `nil` if there is no file (or it is
    /// empty, which SQLite treats as a new database); throws a specific error for a file that is not
    /// an SQLite database, is corrupt, locked, or not an OpenSwiftData store.
    static func inspect(path: String) throws -> StoreFileInspection? {
        guard let header = try header(ofFileAt: path) else { return nil }
        if header.isEmpty { return nil }
        guard header == sqliteHeader else {
            throw SwiftDataError(.storeIsNotSQLite, reason: "The file at \(path) is not an SQLite database. It was not changed.")
        }
        do {
            let connection = try readOnlyConnection(path: path)
            let hasMetadata = try connection.integer("SELECT count(*) FROM sqlite_master WHERE name = 'osd_metadata'") ?? 0
            if hasMetadata == 0 {
                let tables = try connection.integer("SELECT count(*) FROM sqlite_master") ?? 0
                if tables == 0 { return StoreFileInspection(format: SQLiteStore.formatVersion, schema: nil, identifier: nil) }
                throw SwiftDataError(.schemaMismatch, reason: "The SQLite database at \(path) is not an OpenSwiftData store. It was not changed.")
            }
            var result = StoreFileInspection(format: 0, schema: nil, identifier: nil)
            var schemaProblem = "it has none"
            let statement = try connection.uncachedStatement("SELECT key, value FROM osd_metadata")
            while try statement.step() {
                switch statement._string(0) {
                case "format": result.format = statement._int64(1)
                case "identifier": result.identifier = statement._string(1)
                case "schema":
                    do {
                        result.schema = try JSONDecoder().decode(StoredSchema.self, from: Data(statement._string(1).utf8))
                    } catch {
                        // A record from a newer format may not decode here; the format check decides.
                        schemaProblem = "it does not decode: \(error)"
                    }
                default: break
                }
            }
            if result.schema == nil && result.format <= SQLiteStore.formatVersion {
                throw SwiftDataError(.storeIsCorrupt, reason: "The store at \(path) has no readable schema record (\(schemaProblem)). It was not changed.")
            }
            return result
        } catch let error as SQLiteError {
            throw error.swiftDataError.adding(context: "Opening \(path)")
        }
    }

    /// The bytes every SQLite database file begins with.
    static let sqliteHeader = Data("SQLite format 3\0".utf8)

    /// The first 16 bytes of the file at `path` (all of them when it is shorter), or `nil` when
    /// there is no file there.
    ///
    /// The file is read through SQLite (``SQLiteFileBytes``): a store this process has open keeps
    /// its locks on the file.
    ///
    /// - Throws: ``SwiftDataError/storeIsReadOnly`` naming the path and the system's reason when
    ///   the file is there but cannot be read.
    static func header(ofFileAt path: String) throws -> Data? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            let file = try SQLiteFileBytes(path: path)
            var header = [UInt8](repeating: 0, count: Int(min(try file.size(), 16)))
            try header.withUnsafeMutableBytes { try file.read(into: $0, at: 0) }
            return Data(header)
        } catch {
            throw SwiftDataError(.storeIsReadOnly, reason: "The file at \(path) cannot be read: \((error as? SQLiteError)?.message ?? "\(error)")")
        }
    }

    /// A connection that reads the store at `path` and creates no file beside it.
    static func readOnlyConnection(path: String) throws -> SQLiteConnection {
        try SQLiteConnection(path: readOnlyLocation(of: path), readOnly: true, create: false)
    }

    /// Whether the store at `path` has a write-ahead log that may hold content the main file
    /// lacks: a `-wal` file that is not empty, or whose size cannot be read (then the log is read
    /// as SQLite reads it, never skipped).
    private static func mayHoldPendingLog(_ path: String) -> Bool {
        let log = path + "-wal"
        guard FileManager.default.fileExists(atPath: log) else { return false }
        do {
            let size = try FileManager.default.attributesOfItem(atPath: log)[.size] as? NSNumber
            return size?.intValue != 0
        } catch {
            return true
        }
    }

    /// Where to open `path` for inspection without creating files beside it. A read-only connection
    /// to a WAL database creates `-wal` and `-shm` files; when there is no pending WAL content the
    /// main file alone is the whole database, so it is opened as immutable and nothing is created.
    private static func readOnlyLocation(of path: String) -> String {
        guard !mayHoldPendingLog(path) else { return path }
        var escaped = ""
        for character in path.unicodeScalars {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3F"
            case "#": escaped += "%23"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return "file:\(escaped)?immutable=1"
    }
}
