import Foundation
import PostgresNIO

/// The event loops the PostgreSQL store's connections run on: a group of their own rather than
/// SwiftNIO's shared `MultiThreadedEventLoopGroup.singleton`, which a server's HTTP connections
/// use.
///
/// A store call blocks its thread until the server's answer has been read on an event loop. On
/// the shared loops that answer waits behind whatever else they have to do (a server's requests
/// and responses), and the blocked thread and its connection wait with it; when an application
/// holds every shared loop, the answer is never read. On loops of their own, answers are read as
/// they arrive: on two cores, `GET /trips?minimum=50` at 256 connections served 4,132–4,174
/// requests/s with p99 87–90 ms against 3,346–3,479 and 113–121 ms on the shared loops
/// (BENCHMARKS.md, servers).
enum PostgresEventLoops {
    /// One thread for every four cores, and at least one.
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, ProcessInfo.processInfo.activeProcessorCount / 4))
}
