import Foundation

/// An error reading, writing or locking a file, with the file's path and the system's reason.
public struct FileAccessError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure occurred.
    public enum Code: String, Sendable {
        /// The file or directory doesn't exist.
        case notFound
        /// The process may not read or write the file.
        case permissionDenied
        /// The volume has no space left.
        case noSpace
        /// The file's contents are not in the expected format.
        case damaged
        /// Any other failure the system reported.
        case ioFailure
    }

    /// What kind of failure occurred.
    public let code: Code
    /// The file or directory involved.
    public let path: String
    /// The system's or the format's explanation.
    public let reason: String

    /// Creates an error of the given kind for a file.
    public init(_ code: Code, path: String, reason: String) {
        self.code = code
        self.path = path
        self.reason = reason
    }

    /// Makes an error from the `errno` a system call left, naming the operation that failed.
    static func system(_ operation: String, path: String, errno number: Int32 = errno) -> FileAccessError {
        let code: Code
        switch number {
        case ENOENT, ENOTDIR: code = .notFound
        case EACCES, EPERM, EROFS: code = .permissionDenied
        case ENOSPC, EDQUOT: code = .noSpace
        default: code = .ioFailure
        }
        return FileAccessError(code, path: path, reason: "\(operation): \(String(cString: strerror(number)))")
    }

    /// The error's kind, path and reason.
    public var description: String { "FileAccessError.\(code.rawValue) at \(path): \(reason)" }

    /// Errors are equal when they are of the same kind, whatever their details.
    public static func == (lhs: FileAccessError, rhs: FileAccessError) -> Bool { lhs.code == rhs.code }

    /// Hashes the error's kind.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }
}
