import OpenSwiftData

/// A transaction whose commit was sent and whose reply was lost with the connection: the server
/// may have kept it or not. A save settles the doubt by asking the server
/// (``PostgresBackend/settle(_:token:inserted:)``); any other transaction reports
/// ``unknownOutcome``.
struct PostgresCommitInDoubt: Error {
    /// The error the lost connection gave.
    let failure: SwiftDataError
    /// The server process that served the transaction, if known.
    let process: PostgresServerProcess?
    let location: PostgresLocation

    /// The error for a transaction whose outcome nobody can learn.
    var unknownOutcome: SwiftDataError {
        SwiftDataError(.storeUnavailable, reason: "The connection to \(location.displayName) was lost while the transaction committed: whether the server kept it is unknown. Fetch what it wrote before writing it again.")
    }
}
