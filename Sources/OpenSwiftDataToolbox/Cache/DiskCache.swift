import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A cache of data in files, one per entry, with a size limit, least-recently-used eviction and
/// expiry; safe to use from several tasks and several processes at once.
///
/// Each entry is a file named by a stable hash of its key (the same in every process), holding the
/// key, the expiry and a checksum with the contents. An entry is written to a temporary file and
/// renamed into place, so a process killed mid-write leaves the old entry or none, never a torn
/// one; a file damaged any other way reads as a miss and is removed. A hit marks the file as used
/// (its modification time), and when the entries pass ``Limits/size`` the least recently used are
/// removed until they take three quarters of it. Each process keeps its own running total and
/// checks the directory when that total passes the limit, so several processes together may pass
/// it by what they write between two checks.
public final class DiskCache: Sendable {
    /// The limits of a disk cache.
    public struct Limits: Sendable, Equatable {
        /// The most bytes the entries' files take.
        public var size: Int
        /// How long an entry is returned when it is stored without a lifetime; forever when `nil`.
        public var defaultLifetime: TimeInterval?

        /// Creates limits.
        public init(size: Int = 100 * 1024 * 1024, defaultLifetime: TimeInterval? = nil) {
            self.size = size
            self.defaultLifetime = defaultLifetime
        }
    }

    /// The directory the entries' files are in.
    public let directory: URL
    /// The cache's limits.
    public let limits: Limits
    private let knownSize = Locked<Int?>(nil)

    /// Creates a cache in `directory`, which is created when it doesn't exist.
    public init(directory: URL, limits: Limits = Limits()) throws {
        self.directory = directory
        self.limits = limits
        try AtomicFile.createDirectory(at: directory)
    }

    // MARK: Entries

    /// Returns the data stored for `key`, or `nil` when there is none, it expired, or its file is
    /// damaged (and then removed).
    public func data(forKey key: String) throws -> Data? {
        let url = fileURL(for: key)
        guard let file = try AtomicFile.readIfPresent(from: url) else { return nil }
        guard let entry = DiskCacheEntry.decode(file) else {
            // A damaged file: a miss, and the file goes.
            try AtomicFile.remove(at: url)
            return nil
        }
        // Another key whose name hashed the same: a miss, and its entry stays.
        guard entry.key == key else { return nil }
        if let expiry = entry.expiry, expiry <= Date() {
            try AtomicFile.remove(at: url)
            return nil
        }
        // Marks the entry as just used, for eviction; an entry removed meanwhile stays removed.
        _ = utimensat(AT_FDCWD, url.path, nil, 0)
        return entry.contents
    }

    /// Stores `data` for `key`.
    ///
    /// - Parameters:
    ///   - data: The entry's contents.
    ///   - key: The entry's key.
    ///   - lifetime: How long the entry is returned; ``Limits/defaultLifetime`` when `nil`.
    public func setData(_ data: Data, forKey key: String, lifetime: TimeInterval? = nil) throws {
        let expiry = (lifetime ?? limits.defaultLifetime).map { Date().addingTimeInterval($0) }
        let file = DiskCacheEntry(key: key, expiry: expiry, contents: data).encoded()
        let url = fileURL(for: key)
        let replaced = Self.fileSize(url.path) ?? 0
        try AtomicFile.write(file, to: url, durable: false)
        let total = try knownSize.withLock { known -> Int in
            let total = try known ?? scan().reduce(0) { $0 + $1.size }
            known = total + file.count - replaced
            return total + file.count - replaced
        }
        if total > limits.size { try trim() }
    }

    /// Removes the entry for `key`, if any.
    public func removeData(forKey key: String) throws {
        let url = fileURL(for: key)
        let size = Self.fileSize(url.path) ?? 0
        try AtomicFile.remove(at: url)
        knownSize.withLock { known in known = known.map { $0 - size } }
    }

    /// Removes every entry.
    public func removeAll() throws {
        for file in try scan() {
            try AtomicFile.remove(at: directory.appendingPathComponent(file.name))
        }
        knownSize.withLock { $0 = 0 }
    }

    /// Removes the entries that expired; reads remove expired entries too, one at a time.
    public func removeExpired() throws {
        let now = Date()
        for file in try scan() {
            let url = directory.appendingPathComponent(file.name)
            guard let data = try AtomicFile.readIfPresent(from: url) else { continue }
            if let entry = DiskCacheEntry.decode(data) {
                if let expiry = entry.expiry, expiry <= now { try AtomicFile.remove(at: url) }
            } else {
                try AtomicFile.remove(at: url)
            }
        }
        knownSize.withLock { $0 = nil }
    }

    /// The bytes the entries' files take now, as the directory lists them.
    public func totalSize() throws -> Int {
        let total = try scan().reduce(0) { $0 + $1.size }
        knownSize.withLock { $0 = total }
        return total
    }

    /// Removes the least recently used entries until they take three quarters of the size limit,
    /// and the temporary files of writes killed more than a minute ago.
    public func trim() throws {
        var files = try scan(includingAbandonedWrites: true)
        let cutoff = Date().addingTimeInterval(-60)
        for file in files where file.isAbandonedWrite && file.modified < cutoff {
            try AtomicFile.remove(at: directory.appendingPathComponent(file.name))
        }
        files.removeAll { $0.isAbandonedWrite }
        var total = files.reduce(0) { $0 + $1.size }
        if total > limits.size {
            let target = limits.size / 4 * 3
            for file in files.sorted(by: { $0.modified < $1.modified }) where total > target {
                try AtomicFile.remove(at: directory.appendingPathComponent(file.name))
                total -= file.size
            }
        }
        knownSize.withLock { $0 = total }
    }

    // MARK: Files

    private func fileURL(for key: String) -> URL {
        directory.appendingPathComponent(DiskCacheEntry.fileName(for: key))
    }

    private struct File {
        var name: String
        var size: Int
        var modified: Date
        var isAbandonedWrite: Bool
    }

    private func scan(includingAbandonedWrites: Bool = false) throws -> [File] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw FileAccessError(.ioFailure, path: directory.path, reason: "listing the cache: \(error)")
        }
        var files: [File] = []
        for name in names {
            let isAbandonedWrite = name.hasPrefix(AtomicFile.temporaryPrefix)
            guard isAbandonedWrite ? includingAbandonedWrites : name.count == 32 && !name.hasPrefix(".") else { continue }
            var info = stat()
            // A file another process removed since the listing is simply gone.
            guard stat(directory.path + "/" + name, &info) == 0 else { continue }
            #if canImport(Darwin)
            let modified = info.st_mtimespec
            #else
            let modified = info.st_mtim
            #endif
            files.append(File(
                name: name, size: Int(info.st_size),
                modified: Date(timeIntervalSince1970: Double(modified.tv_sec) + Double(modified.tv_nsec) / 1e9),
                isAbandonedWrite: isAbandonedWrite
            ))
        }
        return files
    }

    private static func fileSize(_ path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }
}
