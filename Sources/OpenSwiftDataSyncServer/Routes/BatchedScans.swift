import Foundation

/// Reads the rows of the waiting pulls that a change wakes together in few statements: the pulls
/// that ask while every read is under way wait for the next, which reads what each of them asked
/// for at once, and pulls asking the same (a user's devices after the same cursor) share one
/// answer. A change read by a thousand users costs PostgreSQL a handful of statements instead of a
/// thousand, and the server as many round trips.
///
/// A pull joins only a read that has not begun, so no answer predates the announcement that woke
/// its pull. A cancelled pull stops waiting at once (its read, if begun, goes on for the others).
actor BatchedScans {
    /// What one pull asks for.
    struct Scan: Hashable, Sendable {
        let user: String
        let cursor: Int64
        let limit: Int
    }

    /// Reads the rows of every scan of a batch; a scan missing from the answer has no rows.
    typealias Read = @Sendable ([Scan]) async throws -> [Scan: ScannedRows]

    private let read: Read
    /// How many batches may be read at the same time.
    private let lanes: Int
    /// The most scans one batch reads.
    private let batchSize: Int
    /// The pulls waiting for each scan, until their batch's answer (or their cancellation).
    private var pulls: [Scan: [UUID]] = [:]
    private var continuations: [UUID: CheckedContinuation<ScannedRows, any Error>] = [:]
    /// The scans no batch has begun to read, in the order they were first asked for.
    private var queue: [Scan] = []
    private var reading = 0

    init(lanes: Int = 4, batchSize: Int = 250, read: @escaping Read) {
        self.read = read
        self.lanes = max(1, lanes)
        self.batchSize = max(1, batchSize)
    }

    /// How many pulls wait for a batch to begin.
    var queuedCount: Int { queue.reduce(0) { $0 + (pulls[$1]?.count ?? 0) } }

    /// The user's rows changed after `cursor`, read in a batch that begins after this call.
    func rows(of user: String, after cursor: Int64, limit: Int) async throws -> ScannedRows {
        let scan = Scan(user: user, cursor: cursor, limit: limit)
        let id = UUID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard !Task.isCancelled else { return continuation.resume(throwing: CancellationError()) }
                continuations[id] = continuation
                if pulls[scan] == nil { queue.append(scan) }
                pulls[scan, default: []].append(id)
                if reading < lanes {
                    reading += 1
                    Task { await readBatches() }
                }
            }
        } onCancel: {
            Task { await self.cancel(id) }
        }
    }

    private func cancel(_ id: UUID) {
        continuations.removeValue(forKey: id)?.resume(throwing: CancellationError())
    }

    /// Reads batches of the queued scans until none is left.
    private func readBatches() async {
        while !queue.isEmpty {
            let scans = Array(queue.prefix(batchSize))
            queue.removeFirst(scans.count)
            let waiting = scans.map { (scan: $0, ids: pulls.removeValue(forKey: $0) ?? []) }
            let answer: Result<[Scan: ScannedRows], any Error>
            do {
                answer = .success(try await read(scans))
            } catch {
                answer = .failure(error)
            }
            for (scan, ids) in waiting {
                let rows = answer.map { $0[scan] ?? ScannedRows(user: scan.user, cursor: scan.cursor, limit: scan.limit) }
                for id in ids { continuations.removeValue(forKey: id)?.resume(with: rows) }
            }
        }
        reading -= 1
    }
}
