import Foundation

/// The history of an SQLite store: one row per saved transaction, and per transaction one row per
/// run of changes of one kind to one entity, with the runs' keys (and update masks) packed as
/// little-endian 64-bit integers. Written in the save's own transaction; what a change needs, not
/// copies of rows. See docs/StorageLayout.md.
extension SQLiteStore {
    /// The history tables; created with the store, and on opening a store from before history.
    static let historyTables = [
        "CREATE TABLE IF NOT EXISTS osd_history_transaction (id INTEGER PRIMARY KEY AUTOINCREMENT, timestamp REAL NOT NULL, author TEXT, bundle TEXT NOT NULL, process TEXT NOT NULL) STRICT",
        "CREATE TABLE IF NOT EXISTS osd_history_change (transaction_id INTEGER NOT NULL, position INTEGER NOT NULL, entity TEXT NOT NULL, kind INTEGER NOT NULL, keys BLOB NOT NULL, masks BLOB, tombstones TEXT, PRIMARY KEY (transaction_id, position)) STRICT, WITHOUT ROWID",
    ]

    /// The process's identity in the history: its bundle identifier (or executable name) and id.
    static let processIdentity: (bundle: String, process: String) = {
        let info = ProcessInfo.processInfo
        return (Bundle.main.bundleIdentifier ?? info.processName, String(info.processIdentifier))
    }()

    func historyTransactions(after id: Int64) throws -> [StoreHistoryTransaction] {
        try withReader { connection in
            guard try connection.integer("SELECT count(*) FROM sqlite_master WHERE name = 'osd_history_transaction'") == 1 else { return [] }
            var transactions: [(id: Int64, timestamp: Date, author: String?, bundle: String, process: String)] = []
            let select = try connection.statement("SELECT id, timestamp, author, bundle, process FROM osd_history_transaction WHERE id > ? ORDER BY id")
            defer { select.reset() }
            try select._bind(id, 0)
            while try select.step() {
                transactions.append((select._int64(0), Date(timeIntervalSinceReferenceDate: select._double(1)),
                                     select._isNull(2) ? nil : select._string(2), select._string(3), select._string(4)))
            }
            var changes: [Int64: [StoreHistoryChange]] = [:]
            let runs = try connection.statement("SELECT transaction_id, entity, kind, keys, masks, tombstones FROM osd_history_change WHERE transaction_id > ? ORDER BY transaction_id, position")
            defer { runs.reset() }
            try runs._bind(id, 0)
            while try runs.step() {
                let entity = runs._string(1)
                guard let kind = StoreHistoryChange.Kind(rawValue: runs._int64(2)) else {
                    throw SwiftDataError(.storeIsCorrupt, reason: "The history of \(path) has a change of unknown kind \(runs._int64(2))")
                }
                let keys = runs._withBytes(3) { Self.unpack($0) }
                let masks = runs._isNull(4) ? [] : runs._withBytes(4) { Self.unpack($0) }
                var tombstones: [[String: SnapshotValue]] = []
                if !runs._isNull(5) {
                    do {
                        tombstones = try JSONCoding.decoder().decode([[String: SnapshotValue]].self, from: Data(runs._string(5).utf8))
                    } catch {
                        throw SwiftDataError(.storeIsCorrupt, reason: "The history of \(path) has unreadable preserved values: \(error)")
                    }
                }
                let list = keys.enumerated().map { position, key in
                    StoreHistoryChange(kind: kind, entityName: entity, key: key,
                                       changedProperties: position < masks.count ? UInt64(bitPattern: masks[position]) : 0,
                                       preservedValues: position < tombstones.count ? tombstones[position] : [:])
                }
                changes[runs._int64(0), default: []].append(contentsOf: list)
            }
            return transactions.map {
                StoreHistoryTransaction(id: $0.id, timestamp: $0.timestamp, author: $0.author, bundleIdentifier: $0.bundle,
                                        processIdentifier: $0.process, changes: changes[$0.id] ?? [])
            }
        }
    }

    func deleteHistory(transactions ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        guard !isReadOnly else { throw SwiftDataError(.storeIsReadOnly, reason: "The store at \(path) is read-only; its history cannot be deleted.") }
        try withConnection { connection in
            try connection.execute("BEGIN IMMEDIATE")
            do {
                let changes = try connection.statement("DELETE FROM osd_history_change WHERE transaction_id = ?")
                let transactions = try connection.statement("DELETE FROM osd_history_transaction WHERE id = ?")
                for id in ids {
                    for statement in [changes, transactions] {
                        try statement._bind(id, 0)
                        try statement.run()
                        statement.reset()
                    }
                }
                try Self.markHistoryDeleted(through: ids.max() ?? 0, on: connection)
                try connection.execute("COMMIT")
            } catch {
                if connection.isInTransaction { try? connection.execute("ROLLBACK") }
                throw error
            }
        }
    }

    /// Records that history up to a transaction was deleted, keeping the highest mark.
    static func markHistoryDeleted(through id: Int64, on connection: SQLiteConnection) throws {
        let mark = try connection.statement("INSERT INTO osd_metadata (key, value) VALUES ('historyDeletedThrough', ?) ON CONFLICT(key) DO UPDATE SET value = max(value, excluded.value)")
        defer { mark.reset() }
        try mark._bind(id, 0)
        try mark.run()
    }

    /// SQLite's `data_version` of the writer connection: it changes when another connection commits.
    func externalCommitMarker() throws -> Int64? {
        try withConnection { connection in
            let version = try connection.statement("PRAGMA data_version")
            defer { version.reset() }
            return try version.step() ? version._int64(0) : nil
        }
    }

    func latestHistoryTransaction() throws -> Int64 {
        try withReader { connection in
            guard try connection.integer("SELECT count(*) FROM sqlite_master WHERE name = 'osd_history_transaction'") == 1 else { return 0 }
            return try connection.integer("SELECT max(id) FROM osd_history_transaction") ?? 0
        }
    }

    func historyDeletedThrough() throws -> Int64 {
        try withReader { connection in
            try connection.integer("SELECT value FROM osd_metadata WHERE key = 'historyDeletedThrough'") ?? 0
        }
    }

    static func pack(_ values: [Int64]) -> Data {
        // One copy of the array's bytes, little-endian on every platform.
        let little = Int64(1).littleEndian == 1 ? values : values.map(\.littleEndian)
        return little.withUnsafeBytes { Data($0) }
    }

    static func unpack(_ bytes: UnsafeRawBufferPointer) -> [Int64] {
        (0..<(bytes.count / 8)).map { Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: $0 * 8, as: Int64.self)) }
    }
}

/// The changes one save makes, gathered while it writes, then recorded as one history transaction.
struct HistoryLog {
    private struct Run {
        let kind: StoreHistoryChange.Kind
        let entity: Schema.Entity
        var keys: [Int64] = []
        var masks: [Int64] = []
        var tombstones: [[String: SnapshotValue]] = []
    }

    private var inserted: [Run] = []
    private var updated: [Run] = []
    private var deleted: [Run] = []
    var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// Records an insert. Called once per new row: a run of one entity appends to one array.
    mutating func insert(_ entity: Schema.Entity, key: Int64) {
        let last = Self.run(in: &inserted, .insert, entity)
        inserted[last].keys.append(key)
    }

    mutating func update(_ entity: Schema.Entity, key: Int64, mask: UInt64) {
        let last = Self.run(in: &updated, .update, entity)
        updated[last].keys.append(key)
        updated[last].masks.append(Int64(bitPattern: mask))
    }

    mutating func delete(_ entity: Schema.Entity, key: Int64, preserved: [String: SnapshotValue]?) {
        let last = Self.run(in: &deleted, .delete, entity)
        deleted[last].keys.append(key)
        if let preserved { deleted[last].tombstones.append(preserved) }
    }

    /// The position of the run a change of `entity` joins: the last one, or a new one.
    private static func run(in runs: inout [Run], _ kind: StoreHistoryChange.Kind, _ entity: Schema.Entity) -> Int {
        if let last = runs.last, last.entity === entity { return runs.count - 1 }
        runs.append(Run(kind: kind, entity: entity))
        return runs.count - 1
    }

    /// Records the transaction: inserts, then updates, then deletions, each in the order made.
    func write(author: String?, on connection: SQLiteConnection) throws -> Int64 {
        let transaction = try connection.statement("INSERT INTO osd_history_transaction (timestamp, author, bundle, process) VALUES (?, ?, ?, ?)")
        defer { transaction.reset() }
        try transaction._bind(Date().timeIntervalSinceReferenceDate, 0)
        if let author { try transaction._bind(author, 1) } else { try transaction._bindNull(1) }
        try transaction._bind(SQLiteStore.processIdentity.bundle, 2)
        try transaction._bind(SQLiteStore.processIdentity.process, 3)
        try transaction.run()
        let id = connection.lastInsertedRowID
        let change = try connection.statement("INSERT INTO osd_history_change (transaction_id, position, entity, kind, keys, masks, tombstones) VALUES (?, ?, ?, ?, ?, ?, ?)")
        defer { change.reset() }
        for (position, run) in (inserted + updated + deleted).enumerated() {
            change.reset()
            try change._bind(id, 0)
            try change._bind(Int64(position), 1)
            try change._bind(run.entity.name, 2)
            try change._bind(run.kind.rawValue, 3)
            try SQLiteStore.pack(run.keys).withUnsafeBytes { try change._bind(bytes: $0, 4) }
            if run.kind == .update {
                try SQLiteStore.pack(run.masks).withUnsafeBytes { try change._bind(bytes: $0, 5) }
            } else {
                try change._bindNull(5)
            }
            if run.tombstones.isEmpty {
                try change._bindNull(6)
            } else {
                try change._bind(String(decoding: try JSONCoding.encoder().encode(run.tombstones), as: UTF8.self), 6)
            }
            try change.run()
        }
        return id
    }
}

extension TableLayout {
    /// The attributes whose values a deletion keeps in the history (`.preserveValueOnDeletion`).
    var preservedAttributes: [Int] {
        entity.fields.indices.filter { index in
            columns[index] != nil && entity.fields[index].attribute?.options.contains(.preserveValueOnDeletion) == true
        }
    }

    /// The values of the preserved attributes of the rows a statement selects, with the key in
    /// column 0 and the attributes after it, by key.
    func preservedValues(from statement: SQLiteStatement, attributes: [Int]) throws -> [Int64: [String: SnapshotValue]] {
        var values: [Int64: [String: SnapshotValue]] = [:]
        while try statement.step() {
            var row: [String: SnapshotValue] = [:]
            for (offset, index) in attributes.enumerated() {
                let column = Int32(offset + 1)
                let field = entity.fields[index]
                guard !statement._isNull(column), let storage = field.storage else {
                    row[field.name] = .null
                    continue
                }
                row[field.name] = switch storage {
                case .integer, .unsignedInteger: .integer(statement._int64(column))
                case .real: .real(statement._double(column))
                case .date: .date(Date(timeIntervalSinceReferenceDate: statement._double(column)))
                case .text: .text(statement._string(column))
                case .json: .json(statement._string(column))
                case .uuid: statement._withBytes(column) { $0.count == 16 ? .uuid(UUID(uuid: $0.loadUnaligned(as: uuid_t.self))) : .bytes(Data($0)) }
                case .blob, .decimal: .bytes(statement._withBytes(column) { Data($0) })
                }
            }
            values[statement._int64(0)] = row
        }
        return values
    }
}
