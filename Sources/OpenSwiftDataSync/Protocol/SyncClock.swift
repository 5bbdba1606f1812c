import Foundation

/// A hybrid logical clock reading: when a change was made, as its device's clock said and as the
/// changes it had seen imply.
///
/// Readings order every change of every device the same way: by ``time`` (milliseconds since
/// 1970), then by ``counter`` (changes within one millisecond, or made after seeing a change from
/// a clock ahead of the device's), then by the ``client`` that made it. The last reading wins a
/// property's conflict.
public struct SyncClock: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01 00:00:00 UTC.
    public var time: Int64
    /// Orders readings of the same millisecond.
    public var counter: Int64
    /// The client that made the change.
    public var client: String

    /// A reading.
    public init(time: Int64, counter: Int64, client: String) {
        self.time = time
        self.counter = counter
        self.client = client
    }

    /// Whether `lhs` was read before `rhs`: by time, then counter, then client.
    public static func < (lhs: SyncClock, rhs: SyncClock) -> Bool {
        (lhs.time, lhs.counter, lhs.client) < (rhs.time, rhs.counter, rhs.client)
    }

    /// The next reading after this one for a change made at `date` by `client`: later than both.
    public func next(at date: Date, client: String) -> SyncClock {
        let wall = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        return wall > time ? SyncClock(time: wall, counter: 0, client: client) : SyncClock(time: time, counter: counter + 1, client: client)
    }

    /// The reading before any change.
    public static let zero = SyncClock(time: 0, counter: 0, client: "")

    /// The reading as `time.counter@client`.
    public var description: String { "\(time).\(counter)@\(client)" }

    private enum CodingKeys: String, CodingKey { case time = "t", counter = "c", client = "n" }
}
