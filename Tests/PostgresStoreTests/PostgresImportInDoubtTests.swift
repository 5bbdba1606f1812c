import Foundation
import OpenSwiftData
@testable import OpenSwiftDataPostgres
import Testing

/// `osd import` into PostgreSQL (through `PostgresStoreAccess`) with the connection lost at the
/// worst moment: the import asks the server by its history record's token whether it kept the
/// transaction, as a save does, instead of leaving the user to guess.
extension PostgresCommitInDoubtTests {
    /// Imports three posters labelled `label` in one transaction through the proxy.
    private func importPosters(_ label: String) throws {
        _ = try container(direct)
        let access = try PostgresStoreAccess(url: throughProxy.url, name: direct.name, writable: true)
        let attributes = try #require(access.schema.entities.first { $0.name == "Poster" }).attributes
        try access.transaction {
            let keys = try access.drawKeys(3, root: "Poster")
            try access.insert(keys.map { (key: $0, values: attributes.map { _ in StoredValue.text(label) }) }, into: "Poster", attributes: attributes)
            try access.recordInsertions([("Poster", keys)], author: "osd import")
        }
    }

    @Test func anImportWhoseCommitReplyIsLostIsKeptOnce() throws {
        proxy.cut(.afterCommit)
        try importPosters("imported")
        #expect(proxy.cuts == 1, "the connection was lost after the server committed")
        let (labels, transactions) = try stored()
        #expect(labels == ["imported": 3])
        #expect(transactions == 1)
    }

    @Test func anImportWhoseCommitNeverReachedTheServerThrowsWithNothingWritten() throws {
        proxy.cut(.beforeCommit)
        let error = try #require(throws: SwiftDataError.self) { try importPosters("lost") }
        #expect(error == .storeUnavailable)
        #expect(error.reason?.contains("did not keep it: nothing was written") == true, "\(error)")
        #expect(proxy.cuts == 1)
        let (labels, transactions) = try stored()
        #expect(labels.isEmpty)
        #expect(transactions == 0)
    }
}
