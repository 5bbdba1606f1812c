import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An exclusive lock that several threads and processes take on a file, held for one closure.
///
/// The lock lives in a small companion file (`NAME.lock` beside the file it protects), so that the
/// protected file itself can be replaced by ``AtomicFile`` while the lock is held.
public struct FileLock: Sendable {
    /// The companion file the lock is taken on.
    public let url: URL

    /// Creates the lock that guards the file at `protectedFile`.
    public init(guarding protectedFile: URL) {
        url = protectedFile.deletingLastPathComponent()
            .appendingPathComponent(protectedFile.lastPathComponent + ".lock")
    }

    /// Runs `body` while holding the lock, waiting for other holders to finish first; creates the
    /// directory when it doesn't exist.
    public func withLock<Result>(_ body: () throws -> Result) throws -> Result {
        var descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if descriptor < 0 && errno == ENOENT {
            // The first write into a directory that doesn't exist yet.
            try AtomicFile.createDirectory(at: url.deletingLastPathComponent())
            descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        }
        guard descriptor >= 0 else { throw FileAccessError.system("open lock", path: url.path) }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw FileAccessError.system("flock", path: url.path) }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}
