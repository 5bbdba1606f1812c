import Foundation

/// Why a synchronization failed: what the server refused, what could not reach it, what the
/// store could not do.
public struct SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of failure.
    public enum Kind: String, Sendable, Equatable {
        /// The server did not accept the token (a wrong or expired one): nothing was sent or applied.
        case unauthorized
        /// The server refused a request as malformed or not allowed for the user, naming what is wrong.
        case rejected
        /// The server cannot serve the client's models; the message names both versions and each
        /// difference. The store was not changed.
        case schemaMismatch
        /// The server could not be reached, or its answer could not be read. Pending changes stay
        /// pending and are sent on the next attempt.
        case unreachable
        /// The server failed; pending changes stay pending.
        case serverFailure
        /// The local store could not be read or written.
        case storeFailure
        /// The server's rules refused changes of this device: nothing of them was written, and the
        /// models are back as the server holds them (a model new to the server is deleted). The
        /// message names each model and the reason; ``SyncEngine/refusedChanges`` lists them.
        case refused
    }

    /// What failed.
    public var kind: Kind
    /// What happened, in words: the model and property, the versions, the server's message.
    public var message: String

    /// An error of a kind.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The kind and the message.
    public var description: String { "SyncError.\(kind.rawValue): \(message)" }
}
