import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What identifies one version of a file cheaply: its inode, size and modification time.
///
/// An atomic replace gives the file a new inode, so a change by another process shows even when
/// it happens within the clock's resolution.
struct FileSignature: Equatable, Sendable {
    var inode: UInt64
    var size: Int64
    var seconds: Int
    var nanoseconds: Int

    /// The signature of the file at `path`, or `nil` when there is no file there.
    static func of(_ path: String) -> FileSignature? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        #if canImport(Darwin)
        let time = info.st_mtimespec
        #else
        let time = info.st_mtim
        #endif
        return FileSignature(
            inode: UInt64(info.st_ino), size: Int64(info.st_size),
            seconds: Int(time.tv_sec), nanoseconds: Int(time.tv_nsec)
        )
    }
}
