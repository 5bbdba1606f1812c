import Foundation

/// A store opened without its model classes, from the schema it records: what tools such as `osd`
/// inspect, verify, query, export, import and follow through, whatever kind of store it is.
///
/// Each kind of store implements it with its own SQL (``StoreFile`` for a store file,
/// `PostgresStoreAccess` for a PostgreSQL store) and offers itself through a
/// ``StoreToolingProvider``; the tools name no store and write no SQL. Values cross in the SQLite
/// store's terms (``StoredValue``), which every store's tooling decodes and encodes alike.
package protocol StoreTooling: AnyObject {
    /// The store's name for messages: its path, or its server, database and namespace without the
    /// password.
    var displayName: String { get }
    /// The schema the store records.
    var schema: StoredSchema { get }

    // MARK: Reading

    /// The number of rows of a model's table that `filter` selects (all of them without one).
    func rowCount(of table: ModelTable, filter: QueryExpression?) throws -> Int64
    /// Calls `body` with the rows of a model's table that `filter` selects, ordered by `sort` and
    /// then by key, after skipping `offset` and at most `limit` of them, each with the to-many
    /// relationships it owns when `includeLinks` is `true`.
    ///
    /// - Throws: ``SwiftDataError/unsupportedPredicate`` for a filter the store evaluates in Swift
    ///   only, which cannot run without the app's models.
    func forEachRow(
        of table: ModelTable, filter: QueryExpression?, sort: [QuerySort], limit: Int?, offset: Int?, includeLinks: Bool,
        _ body: (ModelRow) throws -> Void
    ) throws
    /// Runs `body` reading one state of the store, whatever other processes commit meanwhile.
    func reading<R>(_ body: () throws -> R) throws -> R

    // MARK: Inspecting and verifying

    /// What `osd inspect` reports of the store besides its schema.
    func inspection() throws -> StoreInspection
    /// The problems that make the store unsound (empty when it is sound): what the store's own
    /// integrity checks find, tables and columns that do not match the recorded schema,
    /// relationships that name rows that do not exist, counters behind the values in use.
    func verificationProblems() throws -> [String]

    // MARK: History

    /// Calls `body` with the history transactions after `after`, oldest or newest first, saved by
    /// `author` when it is given, until `body` returns `false`.
    func forEachHistoryTransaction(
        after: Int64, author: String?, newestFirst: Bool, _ body: (StoreHistoryTransaction) throws -> Bool
    ) throws
    /// The property lists the history's update masks refer to, read now.
    func historyFieldLayouts() throws -> HistoryFieldLayouts
    /// Makes what other processes have committed since visible to the next read.
    func readAgain() throws

    // MARK: Writing

    /// Why the store cannot hold a value, or `nil` when it can.
    func problem(storing value: StoredValue) -> String?
    /// Runs `body` in one write transaction: everything it writes lands, or nothing does.
    func transaction<R>(_ body: () throws -> R) throws -> R
    /// Whether rows of the class hierarchies rooted at the keys' names can be written with these
    /// keys (none is taken, and no running app can take one meanwhile).
    func canKeep(_ keysByRoot: [String: [Int64]]) throws -> Bool
    /// Inserts rows into a model's table (with the given keys, or new ones when `key` is `nil`)
    /// and returns their keys, in order. `root` names the class hierarchy whose keys the table
    /// shares, if it shares any. A row that breaks a uniqueness constraint throws a ``RowConflict``.
    func insert(_ rows: [(key: Int64?, values: [StoredValue])], into table: ModelTable, root: String?) throws -> [Int64]
    /// Sets a to-one relationship's foreign key: (row key, target key) pairs.
    func setForeignKeys(_ pairs: [(row: Int64, target: Int64)], of relationship: StoredSchema.Relationship, in table: ModelTable) throws
    /// Adds (owner, target) pairs to a link table.
    func addLinks(_ pairs: [(owner: Int64, target: Int64)], to link: LinkName) throws
    /// Records a history transaction of inserted rows, so that running apps see them. Call inside
    /// ``transaction(_:)``.
    func recordInsertions(_ keys: [(entity: String, keys: [Int64])], author: String) throws

    // MARK: Companion records

    /// The values of the store's ``CompanionRecord``s of a domain with the given keys, by key (a
    /// key without a record is absent).
    func companionRecords(domain: String, keys: [String]) throws -> [String: [UInt8]]
    /// Writes ``CompanionRecord``s beside the models. Call inside ``transaction(_:)``.
    func writeCompanionRecords(_ records: [CompanionRecord]) throws
}

/// How a tool opens a store.
package enum StoreToolingAccess: Sendable {
    /// Reading one state of the store; nothing is changed.
    case reading
    /// Reading, each read seeing what other processes have committed since (``StoreTooling/readAgain()``).
    case following
    /// Reading and writing, inside ``StoreTooling/transaction(_:)``.
    case writing
}

/// A kind of store the tools can open: registered once, chosen by the location a command names.
package protocol StoreToolingProvider {
    /// Whether `location` names a store of this kind (a URL scheme, a file's header). Throws when
    /// it cannot tell: a file that is there but cannot be read.
    static func recognizes(_ location: String) throws -> Bool
    /// Opens the store at `location`; `name` is the configuration's name, for stores that keep
    /// several configurations in one place.
    static func openTooling(at location: String, name: String, access: StoreToolingAccess) throws -> any StoreTooling
    /// Whether nothing is at `location` yet (no file, no namespace of the configuration `name`):
    /// where ``creatingStore(at:name:schema:_:)`` makes a store.
    static func isVacant(_ location: String, name: String) throws -> Bool
    /// Creates an empty store at `location` with the tables `schema` records, calls `body` with it
    /// opened for writing, and removes the store again when `body` throws, so that what `body`
    /// writes is kept only whole.
    ///
    /// - Throws: An error saying what is there when `location` already holds a store or anything
    ///   else, or when this kind of store cannot be created by the tools; nothing is changed.
    static func creatingStore<R>(at location: String, name: String, schema: StoredSchema, _ body: (any StoreTooling) throws -> R) throws -> R
}

/// What `osd inspect` reports of a store besides its schema.
package struct StoreInspection: Sendable {
    /// The namespace that holds the store's tables, for stores that have one.
    package var namespace: String?
    /// The store's format number.
    package var format: Int64
    /// The store's identifier, as persistent identifiers name it.
    package var identifier: String?
    /// The bytes the store takes (its file, or its tables on the server).
    package var bytes: Int64
    /// The bytes of its write-ahead log not yet checkpointed, for stores that keep one.
    package var walBytes: Int64
    /// How many history transactions the store keeps.
    package var historyTransactions: Int64
    /// The number of rows of each model's table, by model name.
    package var rows: [String: Int64]
    /// What wrote the store, when it is not OpenSwiftData (Apple's Core Data, and its version).
    package var writtenBy: String?

    package init(namespace: String? = nil, format: Int64, identifier: String?, bytes: Int64, walBytes: Int64 = 0, historyTransactions: Int64, rows: [String: Int64]) {
        self.namespace = namespace
        self.format = format
        self.identifier = identifier
        self.bytes = bytes
        self.walBytes = walBytes
        self.historyTransactions = historyTransactions
        self.rows = rows
    }
}

/// A row that could not be inserted because another has the same values for a uniqueness
/// constraint: its position among the rows, when the store knows it, and the store's words.
package struct RowConflict: Error {
    package var index: Int?
    package var reason: String?

    package init(index: Int?, reason: String?) {
        self.index = index
        self.reason = reason
    }
}

extension StoreTooling {
    /// Calls `body` with every row of a model's table in key order, with the to-many
    /// relationships it owns.
    package func forEachRow(of table: ModelTable, _ body: (ModelRow) throws -> Void) throws {
        try forEachRow(of: table, filter: nil, sort: [], limit: nil, offset: nil, includeLinks: true, body)
    }

    /// The number of rows of a model's table.
    package func rowCount(of table: ModelTable) throws -> Int64 {
        try rowCount(of: table, filter: nil)
    }
}
