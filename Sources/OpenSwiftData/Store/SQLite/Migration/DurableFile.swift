import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File operations that survive a process killed at any instant and, with the `fsync`s, a power
/// loss: copies that are complete or absent, renames and removals made durable in their directory,
/// and the advisory lock that tells a migration in progress from one that was interrupted.
enum DurableFile {
    /// Copies the database file `source` to `destination` so that `destination` exists only once
    /// it is complete: the bytes go to `destination.partial`, are synced, and the copy is renamed
    /// into place. The source is read through SQLite (``SQLiteFileBytes``), so that this process's
    /// locks on it, which its open stores hold, stay in place.
    static func copy(_ source: String, to destination: String) throws {
        let partial = destination + ".partial"
        unlink(partial)
        let input: SQLiteFileBytes
        let size: Int64
        do {
            input = try SQLiteFileBytes(path: source)
            size = try input.size()
        } catch {
            throw failure("Reading \(source)", "\(error)")
        }
        let output = open(partial, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard output >= 0 else { throw failure("Creating \(partial)") }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        do {
            var offset: Int64 = 0
            while offset < size {
                let count = Int(min(Int64(buffer.count), size - offset))
                do {
                    try buffer.withUnsafeMutableBytes { try input.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<count]), at: offset) }
                } catch {
                    throw failure("Reading \(source)", "\(error)")
                }
                var written = 0
                while written < count {
                    let result = buffer.withUnsafeBytes { write(output, $0.baseAddress! + written, count - written) }
                    if result < 0 { throw failure("Writing \(partial)") }
                    written += result
                }
                offset += Int64(count)
            }
            if fsync(output) != 0 { throw failure("Syncing \(partial)") }
        } catch {
            close(output)
            unlink(partial)
            throw error
        }
        close(output)
        try rename(partial, to: destination)
    }

    /// Renames a file over another atomically and makes the rename durable.
    static func rename(_ source: String, to destination: String) throws {
        guard posixRename(source, destination) == 0 else { throw failure("Renaming \(source) to \(destination)") }
        try syncDirectory(of: destination)
    }

    /// Removes a file if it exists and makes the removal durable.
    static func remove(_ path: String) throws {
        guard unlink(path) == 0 || errno == ENOENT else { throw failure("Removing \(path)") }
        try syncDirectory(of: path)
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Whether a file may be at `path`: it is, or looking failed for a reason other than its
    /// absence (``isAbsence(_:)``), such as its permissions or a link that leads nowhere.
    static func mayExist(_ path: String) -> Bool {
        access(path, F_OK) == 0 || !isAbsence(errno)
    }

    /// Whether an error in looking at a path says no file is there: `ENOENT`, `ENOTDIR` or
    /// `ENAMETOOLONG` (a name no file can have).
    static func isAbsence(_ error: Int32) -> Bool {
        error == ENOENT || error == ENOTDIR || error == ENAMETOOLONG
    }

    /// Syncs the directory holding `path`, so that a rename or removal in it is on disk.
    static func syncDirectory(of path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let descriptor = open(directory.isEmpty ? "." : directory, O_RDONLY)
        guard descriptor >= 0 else { throw failure("Opening the directory \(directory)") }
        defer { close(descriptor) }
        // Some file systems cannot sync a directory (EINVAL); their renames are as durable as they get.
        if fsync(descriptor) != 0 && errno != EINVAL { throw failure("Syncing the directory \(directory)") }
    }

    private static func failure(_ action: String) -> SwiftDataError {
        failure(action, String(cString: strerror(errno)))
    }

    /// The error of an action that failed for `reason` (the system's, or SQLite's error).
    private static func failure(_ action: String, _ reason: String) -> SwiftDataError {
        SwiftDataError(.migrationFailed, reason: "\(action) failed: \(reason).")
    }
}

#if canImport(Glibc)
private func posixRename(_ source: String, _ destination: String) -> Int32 { Glibc.rename(source, destination) }
#elseif canImport(Darwin)
private func posixRename(_ source: String, _ destination: String) -> Int32 { Darwin.rename(source, destination) }
#endif
