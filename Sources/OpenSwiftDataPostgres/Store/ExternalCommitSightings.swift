import Foundation

/// What a PostgreSQL store knows of other connections' commits, as one number that changes
/// whenever it learns of one (``PostgresBackend/externalCommitMarker()``).
///
/// It learns in two ways. The store's own connection hears other connections' announcements
/// (`NOTIFY`), each before the reply to its next statement. A reader of the pool hears none, so each
/// of its reads also reads the history counter: a fetch of models in a column of its rows (the
/// fetch's own snapshot), any other read after it in the same trip. Every commit the read saw has
/// a number at most that. Numbers are handed out without gaps, so a counter past
/// the last one seen tells of a commit of another connection exactly when a number in between is
/// not one of the store's own saves.
final class ExternalCommitSightings: @unchecked Sendable {
    // @unchecked Sendable: every property is used only inside `lock`.
    private let lock = NSLock()
    private var announcements: Int64 = 0
    private var countedThroughReads: Int64 = 0
    /// The highest history number a reader has seen, or `nil` before the first read.
    private var seenThrough: Int64?
    /// Numbers of the store's own saves above `seenThrough`.
    private var ownNumbers: Set<Int64> = []

    /// The store's own numbers kept at most between two reads of a reader.
    private static let ownNumbersKept = 4_096

    /// Takes note of an announcement of another connection's commit.
    func announced() {
        lock.lock()
        announcements += 1
        lock.unlock()
    }

    /// Takes note of the history number a save of the store's own recorded.
    func saved(_ number: Int64) {
        lock.lock()
        defer { lock.unlock() }
        // A number already passed by a read counted as another's commit: a harmless extra look.
        guard number > seenThrough ?? .max else { return }
        ownNumbers.insert(number)
        if ownNumbers.count > Self.ownNumbersKept {
            // Saves without reads in between: start again, and take the next read as news once.
            ownNumbers = []
            seenThrough = nil
        }
    }

    /// Takes note of the history counter a reader read after its read.
    func read(counter: Int64) {
        lock.lock()
        defer { lock.unlock() }
        guard let last = seenThrough else {
            // Nothing to compare with: whatever committed before is taken as news once.
            seenThrough = counter
            countedThroughReads += 1
            return
        }
        guard counter > last else { return }
        var othersCommitted = false
        for number in (last + 1)...counter where !ownNumbers.contains(number) {
            othersCommitted = true
            break
        }
        ownNumbers = ownNumbers.filter { $0 > counter }
        seenThrough = counter
        if othersCommitted { countedThroughReads += 1 }
    }

    /// A number that changes whenever the store learns of another connection's commit: the sum of
    /// two counts that only grow.
    var marker: Int64 {
        lock.lock()
        defer { lock.unlock() }
        return announcements &+ countedThroughReads
    }
}
