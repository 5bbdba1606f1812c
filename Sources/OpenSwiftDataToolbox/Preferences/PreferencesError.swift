import Foundation

/// An error reading or writing preferences, naming the key and the reason.
public struct PreferencesError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure occurred.
    public enum Code: String, Sendable {
        /// A stored value isn't of the key's type: the key's default was returned instead, and the
        /// stored value was left as it is.
        case valueNotDecodable
        /// A value couldn't be encoded to be stored; nothing was written.
        case valueNotEncodable
        /// The preferences file isn't valid JSON. Reads return defaults; the next write moves the
        /// file aside (its path is in ``PreferencesError/reason``) and starts a new one.
        case damagedFile
        /// The preferences file or its lock couldn't be read or written.
        case fileAccess
        /// A key migration couldn't convert the stored value; nothing was changed.
        case migrationFailed
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
        "PreferencesError.\(code.rawValue)" + (key.map { " for key '\($0)'" } ?? "") + ": \(reason)"
    }

    /// Errors are equal when they are of the same kind, whatever their details.
    public static func == (lhs: PreferencesError, rhs: PreferencesError) -> Bool { lhs.code == rhs.code }

    /// Hashes the error's kind.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }
}
