import Foundation
import OpenSwiftData
import PostgresNIO

/// A save of one new model made by one statement (``PostgresBackend/pendingSave(_:)``), waiting to
/// go to the server with the other such saves that wait at the same time, and then its outcome.
final class PendingSave: @unchecked Sendable {
    // @unchecked Sendable: made by its save's thread, which then waits (``WaitingSaves``); the
    // thread whose turn it is to send draws its key, sends it and sets `outcome`, then marks it
    // delivered (`isDelivered`, used only inside `WaitingSaves`' lock); the save's thread reads
    // `outcome` and `key` once it saw it delivered.

    /// What the statement does.
    enum Kind {
        /// Updates the stored row with the model's unique values, or inserts a new row
        /// (``PostgresBackend/upsertRecordingStatement(for:namespace:channel:)``).
        case upsert
        /// Inserts a new row (``PostgresBackend/recordSQL(namespace:channel:after:)`` after the
        /// table's insert).
        case insert
    }

    let kind: Kind
    /// The entity of the new model.
    let entity: Schema.Entity
    /// The sequence the new row's key is drawn from.
    let sequence: String
    private let sql: String
    /// The statement's arguments, the key's (the first) and the insert's history record's to come.
    private(set) var arguments: [PostgresData]
    /// The position of the insert's history record among `arguments`.
    private let changesArgument: Int
    /// The token of the save's history record.
    let token: Int64
    /// The key drawn for a new row, once the statement was made.
    private(set) var key: Int64 = 0
    /// The rows the statement returned, or why it failed; `nil` until it was sent.
    var outcome: Result<[PostgresRow], any Error>?
    /// Whether the thread that sent the save is done with it (``WaitingSaves/finishSending(_:)``).
    fileprivate var isDelivered = false

    init(kind: Kind, entity: Schema.Entity, sequence: String, sql: String, arguments: [PostgresData], changesArgument: Int, token: Int64) {
        self.kind = kind
        self.entity = entity
        self.sequence = sequence
        self.sql = sql
        self.arguments = arguments
        self.changesArgument = changesArgument
        self.token = token
    }

    /// The statement, for a new row with `key`: the key and the history record of its insert go
    /// into the arguments.
    func statement(key: Int64) throws -> PostgresStatement {
        var inserted = HistoryLog()
        inserted.insert(entity, key: key)
        self.key = key
        arguments[0] = PostgresData(int64: key)
        arguments[changesArgument] = PostgresData(type: .bytea, value: ByteBuffer(bytes: try inserted.encoded()))
        return .prepared(sql, arguments)
    }
}

/// The one-statement saves waiting for the store's connection (``PostgresBackend/save(_:of:)``),
/// and whose turn it is to send them.
///
/// One save at a time sends: it takes every save waiting once it holds the connection, sends them
/// in one trip and gives each its outcome. The saves it sent then go on without the connection,
/// and one of those that came meanwhile sends the next trip, so a save never waits for the
/// connection after its trip is over.
final class WaitingSaves: @unchecked Sendable {
    // @unchecked Sendable: `saves`, `isSending` and each save's `isDelivered` are used only while
    // `condition` is held.
    private let condition = NSCondition()
    private var saves: [PendingSave] = []
    private var isSending = false

    /// Adds a save to the ones waiting.
    func add(_ save: PendingSave) {
        condition.withLock { saves.append(save) }
    }

    /// How many saves wait.
    var count: Int { condition.withLock { saves.count } }

    /// Every save waiting, in the order they came, leaving none.
    func takeAll() -> [PendingSave] {
        condition.withLock {
            let taken = saves
            saves = []
            return taken
        }
    }

    /// Waits until another save's trip delivered `save`, and returns `false`; or until no save is
    /// sending, and returns `true`: the caller then sends every save waiting, its own among them,
    /// and calls ``finishSending(_:)``.
    func waitForOutcomeOrTurn(_ save: PendingSave) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if save.isDelivered { return false }
            if !isSending {
                isSending = true
                return true
            }
            condition.wait()
        }
    }

    /// Marks the saves the caller sent as delivered (each with its outcome) and ends its turn.
    func finishSending(_ sent: [PendingSave]) {
        condition.lock()
        for save in sent { save.isDelivered = true }
        isSending = false
        condition.broadcast()
        condition.unlock()
    }
}
