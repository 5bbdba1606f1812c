import Foundation

/// An error reading or writing a secret, naming the key and the reason.
public struct SecretsError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure occurred.
    public enum Code: String, Sendable {
        /// No secret is stored for the key.
        case notFound
        /// ``SecretStore/add(_:for:options:)`` found a secret already stored for the key.
        case duplicate
        /// The process may not read or write the secret (a missing entitlement or access group, a
        /// file it may not open, a key that doesn't open the secrets file).
        case accessDenied
        /// The secret can't be reached now: the device is locked, or the system may not ask the
        /// user.
        case interactionNotAllowed
        /// The secrets file is damaged or was not written by this library.
        case damagedStore
        /// Any other failure; the reason carries the system's code.
        case failure
    }

    /// What kind of failure occurred.
    public let code: Code
    /// The key involved, if any.
    public let key: String?
    /// What went wrong, in words.
    public let reason: String

    /// Creates an error.
    public init(_ code: Code, key: String?, reason: String) {
        self.code = code
        self.key = key
        self.reason = reason
    }

    /// The error's kind, key and reason.
    public var description: String {
        "SecretsError.\(code.rawValue)" + (key.map { " for key '\($0)'" } ?? "") + ": \(reason)"
    }

    /// Errors are equal when they are of the same kind, whatever their details.
    public static func == (lhs: SecretsError, rhs: SecretsError) -> Bool { lhs.code == rhs.code }

    /// Hashes the error's kind.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }
}
