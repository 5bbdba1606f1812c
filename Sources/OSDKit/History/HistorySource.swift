import OpenSwiftData
import OpenSwiftDataPostgres

/// A store whose history `osd history` reads: a store file or a PostgreSQL store.
protocol HistorySource {
    /// The schema the store records.
    var schema: StoredSchema { get }
    /// Calls `body` with the history transactions after `after`, oldest or newest first, saved by
    /// `author` when it is given, until `body` returns `false`.
    func forEachHistoryTransaction(
        after: Int64, author: String?, newestFirst: Bool, _ body: (StoreHistoryTransaction) throws -> Bool
    ) throws
    /// The property lists the history's update masks refer to, read now.
    func historyFieldLayouts() throws -> HistoryFieldLayouts
    /// Makes what other processes have committed since visible to the next read.
    func readAgain() throws
}

extension StoreFile: HistorySource {
    /// A file opened `following` reads what is committed with each statement.
    func readAgain() {}
}

extension PostgresStoreAccess: HistorySource {}

/// Opens the store a command's STORE argument names, for reading its history, once or
/// `following` what other processes save.
func historySource(_ store: String, name: String, following: Bool) throws -> any HistorySource {
    guard let url = try StoreArgument.postgresURL(store) else { return try StoreFile(path: store, following: following) }
    return try PostgresStoreAccess(url: url, name: name)
}
