/// A record an add-on of the store (the sync engine) keeps beside the models, in a table of the
/// store's own: a key and a value within a domain that names the add-on.
///
/// Records are written in the same transaction as a save (``StoreChanges/companionRecords``), so
/// that what the add-on knows of the models never disagrees with the models, whatever stops the
/// process; or on their own (``CompanionRecordStore/writeCompanionRecords(_:)``).
package struct CompanionRecord: Sendable, Equatable {
    /// The add-on's name for its records, such as `sync.ids`.
    package var domain: String
    /// The record's key within its domain.
    package var key: String
    /// The record's value, or `nil` to remove the record.
    package var value: [UInt8]?

    /// A record to write, or to remove when `value` is `nil`.
    package init(domain: String, key: String, value: [UInt8]?) {
        self.domain = domain
        self.key = key
        self.value = value
    }

    /// A record whose value is text.
    package init(domain: String, key: String, text: String?) {
        self.init(domain: domain, key: key, value: text.map { Array($0.utf8) })
    }
}

/// A store that keeps ``CompanionRecord``s beside its models.
package protocol CompanionRecordStore: StoreBackend {
    /// The value of one record, or `nil` when there is none.
    func companionRecord(domain: String, key: String) throws -> [UInt8]?
    /// The values of the records of a domain with the given keys, by key (a key without a record is
    /// absent).
    func companionRecords(domain: String, keys: [String]) throws -> [String: [UInt8]]
    /// Calls `body` with every record of a domain whose key starts with `prefix`, in key order.
    func forEachCompanionRecord(domain: String, keyPrefix: String, _ body: (String, [UInt8]) throws -> Void) throws
    /// Writes records in one transaction of their own.
    func writeCompanionRecords(_ records: [CompanionRecord]) throws
}
