/// The history transactions an add-on still needs (a sync engine's unsent changes), which
/// ``ModelContext/deleteHistory(_:)`` keeps: every transaction after a number the add-on records.
package enum HistoryRetention {
    /// The record's domain and key.
    static let domain = "history"
    static let key = "keptAfter"

    /// The number after which the history is kept, or `nil` when no add-on needs any of it.
    package static func keptAfter(in store: any CompanionRecordStore) throws -> Int64? {
        try store.companionRecord(domain: domain, key: key).flatMap { Int64(String(decoding: $0, as: UTF8.self)) }
    }

    /// The record that keeps the history after `transaction`.
    package static func keep(after transaction: Int64) -> CompanionRecord {
        CompanionRecord(domain: domain, key: key, text: String(transaction))
    }
}
