import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads and writes whole files so that a reader, or the next launch after a crash, sees either the
/// old contents or the new ones, never a mix.
///
/// A write goes to a new temporary file in the same directory, is flushed to the disk, and then
/// replaces the destination with one `rename`, after which the directory is flushed too. Every
/// failure throws a ``FileAccessError`` naming the file; nothing is swallowed.
public enum AtomicFile {
    /// The prefix of the temporary files a write creates beside its destination.
    static let temporaryPrefix = ".osd-write-"

    /// Replaces the file at `url` with `data`, atomically and durably.
    ///
    /// - Parameters:
    ///   - data: The file's new contents.
    ///   - url: The destination, a file URL whose directory exists.
    ///   - permissions: The new file's POSIX permissions, `0o644` unless given.
    ///   - durable: Whether the contents and the rename are flushed to the disk before returning
    ///     (the default). Without it, a crash of the process still leaves the old contents or the
    ///     new, but a power loss may leave a damaged file, which suits caches that check their
    ///     entries.
    public static func write(_ data: Data, to url: URL, permissions: mode_t = 0o644, durable: Bool = true) throws {
        let directory = url.deletingLastPathComponent().path
        let temporary = directory + "/" + temporaryPrefix + url.lastPathComponent + "." + UUID().uuidString
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard descriptor >= 0 else { throw FileAccessError.system("create \(temporary)", path: url.path) }
        var written = false
        defer {
            if !written { unlink(temporary) }
        }
        do {
            try writeAll(data, to: descriptor, path: url.path)
            guard !durable || fsync(descriptor) == 0 else { throw FileAccessError.system("fsync", path: url.path) }
        } catch {
            close(descriptor)
            throw error
        }
        guard close(descriptor) == 0 else { throw FileAccessError.system("close", path: url.path) }
        guard rename(temporary, url.path) == 0 else { throw FileAccessError.system("rename", path: url.path) }
        written = true
        if durable { syncDirectory(directory) }
    }

    /// Returns the contents of the file at `url`.
    ///
    /// - Throws: ``FileAccessError`` with code ``FileAccessError/Code/notFound`` when there is no
    ///   such file, or the system's reason when it can't be read.
    public static func read(from url: URL) throws -> Data {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileAccessError.system("open", path: url.path) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw FileAccessError.system("fstat", path: url.path) }
        // Reads into one buffer of the file's size, and on past it if the file grew meanwhile.
        var contents = Data(count: max(Int(info.st_size), 0) + 1)
        var length = 0
        while true {
            if length == contents.count { contents.count *= 2 }
            let count = contents.withUnsafeMutableBytes { buffer in
                systemRead(descriptor, buffer.baseAddress! + length, buffer.count - length)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileAccessError.system("read", path: url.path)
            }
            if count == 0 {
                contents.count = length
                return contents
            }
            length += count
        }
    }

    /// Returns the contents of the file at `url`, or `nil` when there is no such file.
    public static func readIfPresent(from url: URL) throws -> Data? {
        do {
            return try read(from: url)
        } catch let error as FileAccessError where error.code == .notFound {
            return nil
        }
    }

    /// Removes the file at `url`; removing a file that isn't there succeeds.
    public static func remove(at url: URL) throws {
        guard unlink(url.path) == 0 || errno == ENOENT else { throw FileAccessError.system("unlink", path: url.path) }
    }

    /// Creates the directory at `url` and its parents when they don't exist.
    public static func createDirectory(at url: URL, permissions: mode_t = 0o755) throws {
        var path = ""
        for component in url.standardizedFileURL.path.split(separator: "/", omittingEmptySubsequences: true) {
            path += "/" + component
            if mkdir(path, permissions) != 0 && errno != EEXIST {
                throw FileAccessError.system("mkdir", path: path)
            }
        }
    }

    /// Removes the temporary files that writes killed before their `rename` left beside `url`.
    ///
    /// Call it only while no other write to `url` can be running (under the file's lock). Writes
    /// to other files are left alone, those whose names begin with `url`'s too (`secrets.key`
    /// beside `secrets`): a temporary file is `url`'s only when its name is the prefix and a UUID.
    static func removeAbandonedWrites(beside url: URL) throws {
        let directory = url.deletingLastPathComponent()
        let prefix = temporaryPrefix + url.lastPathComponent + "."
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw FileAccessError(.ioFailure, path: directory.path, reason: "listing the directory: \(error)")
        }
        for name in names where name.hasPrefix(prefix) && UUID(uuidString: String(name.dropFirst(prefix.count))) != nil {
            try remove(at: directory.appendingPathComponent(name))
        }
    }

    private static func writeAll(_ data: Data, to descriptor: Int32, path: String) throws {
        try data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw FileAccessError.system("write", path: path)
                }
                offset += count
            }
        }
    }

    /// Flushes a directory's entries, so that a rename into it survives a power loss.
    private static func syncDirectory(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        // A directory that can't be flushed (some file systems refuse) keeps the rename in the page
        // cache, as every other write there does; the file's contents were flushed already.
        _ = fsync(descriptor)
        close(descriptor)
    }
}

#if canImport(Darwin)
private let systemRead = Darwin.read
private let systemWrite = Darwin.write
#elseif canImport(Glibc)
private let systemRead = Glibc.read
private let systemWrite = Glibc.write
#elseif canImport(Musl)
private let systemRead = Musl.read
private let systemWrite = Musl.write
#endif
