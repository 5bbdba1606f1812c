import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres

/// A store `osd export` reads and `osd import` writes: a store file or a PostgreSQL store. Values
/// cross in the SQLite store's terms (``StoredValue``), which both stores' tools decode and encode
/// alike.
protocol TransferStore: AnyObject {
    /// The schema the store records.
    var schema: StoredSchema { get }
    /// The number of rows of a model's table.
    func rowCount(of table: ModelTable) throws -> Int
    /// Every row of a model's table in key order, with the to-many relationships it owns.
    func forEachRow(of table: ModelTable, _ body: (ModelRow) throws -> Void) throws
    /// Why the store cannot hold a value, or `nil` when it can.
    func problem(storing value: StoredValue) -> String?
    /// Runs `body` reading one state of the store, whatever other processes commit meanwhile.
    func reading<R>(_ body: () throws -> R) throws -> R
    /// Runs `body` in one write transaction: everything it writes lands, or nothing does.
    func transaction<R>(_ body: () throws -> R) throws -> R
    /// Whether rows of the class hierarchies rooted at the keys' names can be written with these
    /// keys (none is taken, and no running app can take one meanwhile).
    func canKeep(_ keysByRoot: [String: [Int64]]) throws -> Bool
    /// Inserts rows into a model's table (with the given keys, or new ones when `key` is `nil`)
    /// and returns their keys, in order. A row that breaks a uniqueness constraint throws a
    /// ``RowConflict``.
    func insert(_ rows: [(key: Int64?, values: [StoredValue])], into table: ModelTable, root: String?) throws -> [Int64]
    /// Sets a to-one relationship's foreign key: (row key, target key) pairs.
    func setForeignKeys(_ pairs: [(row: Int64, target: Int64)], of relationship: StoredSchema.Relationship, in table: ModelTable) throws
    /// Adds (owner, target) pairs to a link table.
    func addLinks(_ pairs: [(owner: Int64, target: Int64)], to link: LinkName) throws
    /// Records a history transaction of inserted rows, so that running apps see them.
    func recordInsertions(_ keys: [(entity: String, keys: [Int64])], author: String) throws
}

/// A row that could not be inserted because another has the same values for a uniqueness
/// constraint: its position among the rows, when the store knows it, and the store's words.
struct RowConflict: Error {
    var index: Int?
    var reason: String?
}

/// Opens the store a command's STORE argument names, for export (reading) or import (writing).
func transferStore(_ store: String, name: String, writable: Bool) throws -> any TransferStore {
    guard let url = try StoreArgument.postgresURL(store) else { return try StoreFile(path: store, writable: writable) }
    return try PostgresStoreAccess(url: url, name: name, writable: writable)
}

extension StoreFile: TransferStore {
    func rowCount(of table: ModelTable) throws -> Int { Int(try table.count(in: self)) }

    func forEachRow(of table: ModelTable, _ body: (ModelRow) throws -> Void) throws {
        try table.forEachRow(in: self, body)
    }

    func problem(storing value: StoredValue) -> String? { nil }

    func canKeep(_ keysByRoot: [String: [Int64]]) throws -> Bool {
        // The store's writer holds the file's write lock for the whole import, and SQLite hands
        // out the next key from the largest one in the table: no key can be taken meanwhile.
        true
    }

    func insert(_ rows: [(key: Int64?, values: [StoredValue])], into table: ModelTable, root: String?) throws -> [Int64] {
        let keysTable = root.map { StoreFile.quote(StoreFile.sharedKeysTable(root: $0)) }
        let columns = table.attributes.map { StoreFile.quote($0.name) }
        var keys: [Int64] = []
        keys.reserveCapacity(rows.count)
        for (index, row) in rows.enumerated() {
            var key = row.key
            if let keysTable {
                key = try key.map { try run("INSERT INTO \(keysTable) (k) VALUES (?)", [.integer($0)]) } ?? run("INSERT INTO \(keysTable) DEFAULT VALUES")
            }
            let names = (key == nil ? [] : [StoreFile.primaryKeyColumn]) + columns
            let values = (key.map { [StoredValue.integer($0)] } ?? []) + row.values
            let sql = names.isEmpty
                ? "INSERT INTO \(table.table) DEFAULT VALUES"
                : "INSERT INTO \(table.table) (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))"
            do {
                keys.append(try run(sql, values))
            } catch let error as SwiftDataError where error == .uniquenessConflict {
                throw RowConflict(index: index, reason: nil)
            }
        }
        return keys
    }

    func setForeignKeys(_ pairs: [(row: Int64, target: Int64)], of relationship: StoredSchema.Relationship, in table: ModelTable) throws {
        let sql = "UPDATE \(table.table) SET \(StoreFile.quote(relationship.name)) = ? WHERE \(StoreFile.primaryKeyColumn) = ?"
        for pair in pairs { try run(sql, [.integer(pair.target), .integer(pair.row)]) }
    }

    func addLinks(_ pairs: [(owner: Int64, target: Int64)], to link: LinkName) throws {
        let sql = "INSERT OR IGNORE INTO \(StoreFile.quote(link.table)) (owner, target) VALUES (?, ?)"
        for pair in pairs { try run(sql, [.integer(pair.owner), .integer(pair.target)]) }
    }
}

extension PostgresStoreAccess: TransferStore {
    func rowCount(of table: ModelTable) throws -> Int { Int(try count(table.entity.name)) }

    func forEachRow(of table: ModelTable, _ body: (ModelRow) throws -> Void) throws {
        try forEachRow(of: table, filter: nil, body)
    }

    func problem(storing value: StoredValue) -> String? { Self.problem(storing: value) }

    func reading<R>(_ body: () throws -> R) throws -> R {
        // Opened for reading, the store reads in one read-only transaction from the start.
        try body()
    }

    func canKeep(_ keysByRoot: [String: [Int64]]) throws -> Bool {
        for (root, keys) in keysByRoot.sorted(by: { $0.key < $1.key }) where try !reserveKeys(keys, root: root) {
            return false
        }
        return true
    }

    func insert(_ rows: [(key: Int64?, values: [StoredValue])], into table: ModelTable, root: String?) throws -> [Int64] {
        var fresh = try drawKeys(rows.count(where: { $0.key == nil }), root: root ?? table.entity.name)[...]
        let keyed = rows.map { row in (key: row.key ?? fresh.popFirst() ?? 0, values: row.values) }
        do {
            try insert(keyed, into: table.entity.name, attributes: table.attributes)
        } catch let error as SwiftDataError where error == .uniquenessConflict {
            throw RowConflict(index: nil, reason: error.reason)
        }
        return keyed.map(\.key)
    }

    func setForeignKeys(_ pairs: [(row: Int64, target: Int64)], of relationship: StoredSchema.Relationship, in table: ModelTable) throws {
        try setForeignKeys(pairs, of: table.entity.name, column: relationship.name)
    }

    func addLinks(_ pairs: [(owner: Int64, target: Int64)], to link: LinkName) throws {
        try addLinks(pairs, to: link.table)
    }
}
