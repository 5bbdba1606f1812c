import Foundation
import OpenSwiftData
import OpenSwiftDataSync
@testable import OpenSwiftDataSyncServer
import Testing

/// The server keeps PostgreSQL's statistics of its rows table current as the table grows, so that
/// a pull reads a page by the index instead of sorting every row after its cursor.
struct SyncRowStatisticsTests {
    @Test func anAnalysisIsDueWhenTheTableGrewByAFifth() {
        let statistics = RowStatistics()
        #expect(!statistics.recordWrites(RowStatistics.defaultMinimumGrowth - 1))
        #expect(statistics.recordWrites(1))
        // One analysis at a time.
        #expect(!statistics.recordWrites(50_000))
        statistics.analyzed(rowCount: 100_000)
        #expect(!statistics.recordWrites(19_999))
        #expect(statistics.recordWrites(1))
        // A failed analysis leaves the count: the next write asks again.
        statistics.analyzed(rowCount: nil)
        #expect(statistics.recordWrites(1))
    }

    @Test(.enabled(if: SyncPostgres.isAvailable, SyncPostgres.skipMessage), .stopsSyncServers)
    func aBulkUploadIsAnalyzedAndDownloadsWhole() async throws {
        // A server that analyzes after 500 rows, as the default one does after 5,000.
        let threshold = 500
        let server = try await RunningSyncServer.start("stats", rowsBeforeAnalysis: threshold)
        let a = try SyncDevice(server: server)
        let context = a.context()
        let count = threshold + 100
        for index in 0..<count { context.insert(Trip(code: "T\(index)", name: "Trip \(index)", price: Double(index))) }
        try context.save()
        try await a.engine.sync()

        let estimate = try await psql("SELECT reltuples::bigint FROM pg_class WHERE oid = to_regclass('\"\(server.name)_sync\".rows')")
        #expect((Int(estimate) ?? 0) >= threshold, "the rows table was not analyzed: \(estimate)")

        let b = try SyncDevice(server: server)
        try await b.engine.sync()
        let received = try b.trips()
        #expect(received.count == count)
        #expect(Set(received.map(\.code)) == Set((0..<count).map { "T\($0)" }))
    }

    /// The single value a query prints, through `psql`.
    private func psql(_ query: String) async throws -> String {
        let (status, output) = try await runToEnd(URL(fileURLWithPath: "/usr/bin/env"), ["psql", try #require(SyncPostgres.url), "-Atc", query])
        #expect(status == 0)
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
