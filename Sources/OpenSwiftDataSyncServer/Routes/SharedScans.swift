/// Lets the waiting pulls of one user that a change wakes together read the changed rows once:
/// the first to ask reads them, and the others asking for the same rows after the same
/// announcement meanwhile share its answer, each leaving out the rows it changed last. With a
/// hundred devices of one user, a change costs PostgreSQL one read instead of a hundred.
///
/// A read is shared only while it runs: a pull that asks once it ended reads again, so no answer
/// predates the announcement that woke its pull.
actor SharedScans {
    private struct Key: Hashable {
        let user: String
        let cursor: Int64
        let limit: Int
        /// The user's announcement count when the pulls woke.
        let generation: UInt64
    }

    private var running: [Key: Task<ScannedRows, any Error>] = [:]
    /// How many callers were given another's read rather than reading.
    private(set) var sharedCount = 0

    /// The rows `read` returns for these arguments, from a read under way for the same ones when
    /// there is one.
    func rows(
        of user: String, after cursor: Int64, limit: Int, generation: UInt64,
        read: @escaping @Sendable () async throws -> ScannedRows
    ) async throws -> ScannedRows {
        let key = Key(user: user, cursor: cursor, limit: limit, generation: generation)
        if let task = running[key] {
            sharedCount += 1
            return try await task.value
        }
        let task = Task { try await read() }
        running[key] = task
        defer { running[key] = nil }
        return try await task.value
    }
}
