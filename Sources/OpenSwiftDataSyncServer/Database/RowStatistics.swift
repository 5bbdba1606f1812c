import Logging
import OpenSwiftData
import PostgresNIO

/// Keeps PostgreSQL's statistics of the rows table current while it grows.
///
/// A pull reads a page of a user's rows in change order by the `(owner, version)` index, stopping
/// after a page. With statistics from when the table was small (or none: a new table), the planner
/// expects a few hundred rows after any cursor, collects them all and sorts them instead, so each
/// page costs as much as the whole rest of the table — an initial sync of 100,000 rows in pages of
/// 5,000 read 1,000,000. Autovacuum analyzes the table in time, but only a minute or more after a
/// bulk upload, when a first download has begun. So the server analyzes the table itself once the
/// rows written since the last analysis reach a fifth of the table (and at least 5,000).
package final class RowStatistics: Sendable {
    private struct State {
        var writtenSinceAnalysis = 0
        var rowsAtAnalysis = 0
        var analyzing = false
    }

    /// Rows written before the first analysis, unless a server says otherwise.
    package static let defaultMinimumGrowth = 5_000

    /// Rows written before the first analysis, and the least growth that calls for another.
    let minimumGrowth: Int

    private let state = LockedValue(State())

    /// Statistics that ask for an analysis once `minimumGrowth` rows were written, then each time
    /// the table grew by a fifth (and at least `minimumGrowth`).
    init(minimumGrowth: Int = RowStatistics.defaultMinimumGrowth) {
        self.minimumGrowth = minimumGrowth
    }

    /// Notes rows written; returns whether the table is due an analysis, which the caller then runs
    /// and reports with ``analyzed(rowCount:)``.
    func recordWrites(_ count: Int) -> Bool {
        state.withValue { state in
            state.writtenSinceAnalysis += count
            guard !state.analyzing, state.writtenSinceAnalysis >= max(minimumGrowth, state.rowsAtAnalysis / 5) else { return false }
            state.analyzing = true
            return true
        }
    }

    /// Notes an analysis that ended, with the table's size then (`nil` when it failed).
    func analyzed(rowCount: Int?) {
        state.withValue { state in
            state.analyzing = false
            guard let rowCount else { return }
            state.rowsAtAnalysis = rowCount
            state.writtenSinceAnalysis = 0
        }
    }
}

extension SyncDatabase {
    /// Notes rows a push wrote, and analyzes the rows table when it has grown enough.
    func noteWrites(_ count: Int) async {
        guard count > 0, statistics.recordWrites(count) else { return }
        do {
            try await client.query(sql("ANALYZE \(quoted).rows"), logger: logger)
            var binds = PostgresBindings()
            binds.append("\(quoted).rows")
            let rows = try await client.query(PostgresQuery(unsafeSQL: "SELECT reltuples::bigint FROM pg_class WHERE oid = to_regclass($1)", binds: binds), logger: logger)
            var count = 0
            for try await tuples in rows.decode(Int64.self) { count = Int(tuples) }
            statistics.analyzed(rowCount: count)
        } catch {
            // The statistics stay as they were; autovacuum brings them up to date later.
            logger.warning("Analyzing \(quoted).rows failed: \(String(reflecting: error))")
            statistics.analyzed(rowCount: nil)
        }
    }
}
