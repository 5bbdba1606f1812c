import Foundation

/// Preferences kept in a JSON file of their own: the storage on Linux and servers, and anywhere an
/// app wants a file it can read, diff and ship.
///
/// The file is one JSON object, one key per line. Every write takes an exclusive lock shared with
/// other processes, rereads the file, applies the change and replaces the file atomically, so two
/// processes that set different keys at once both keep their change, and a write killed at any
/// moment leaves the old file or the new one, never a half-written file.
public final class FilePreferencesStorage: PreferencesStorage {
    /// The preferences file.
    public let url: URL
    private let lock: FileLock
    private let lastSeen = Locked<FileSignature?>(nil)

    /// Creates a storage that keeps preferences in the file at `url`, which is created, with its
    /// directory, at the first write.
    public init(url: URL) {
        self.url = url
        lock = FileLock(guarding: url)
    }

    /// Returns every stored key and its value's JSON text, as the file holds them now.
    ///
    /// - Throws: ``PreferencesError`` with code ``PreferencesError/Code/damagedFile`` when the
    ///   file isn't a JSON object, or ``PreferencesError/Code/fileAccess`` when it can't be read.
    public func load() throws -> [String: Data] {
        try readFile().values
    }

    /// Changes the stored values under the file's lock, and replaces the file atomically.
    public func update(
        _ changes: ([String: Data]) throws -> [String: Data?],
        report: (PreferencesError) -> Void
    ) throws -> [String: Data] {
        do {
            return try lock.withLock {
                var values: [String: Data]
                do {
                    values = try readFile().values
                } catch let error as PreferencesError where error.code == .damagedFile {
                    let aside = url.deletingLastPathComponent().appendingPathComponent(
                        url.lastPathComponent + ".damaged-\(Int(Date().timeIntervalSince1970))"
                    )
                    guard rename(url.path, aside.path) == 0 else {
                        throw FileAccessError.system("rename \(url.path) to \(aside.path)", path: url.path)
                    }
                    report(PreferencesError(
                        .damagedFile, key: nil,
                        reason: "\(error.reason); the file was moved to \(aside.path) and a new one started"
                    ))
                    values = [:]
                }
                let changed = try changes(values)
                guard !changed.isEmpty else { return values }
                for (key, value) in changed {
                    values[key] = value
                }
                try AtomicFile.createDirectory(at: url.deletingLastPathComponent())
                try AtomicFile.removeAbandonedWrites(beside: url)
                try AtomicFile.write(PreferencesFileFormat.serialize(values), to: url)
                lastSeen.withLock { $0 = FileSignature.of(url.path) }
                return values
            }
        } catch let error as FileAccessError {
            throw PreferencesError(.fileAccess, key: nil, reason: error.description)
        }
    }

    /// Returns whether the file was replaced, changed or removed since it was last read.
    public func mayHaveChanged() -> Bool {
        let now = FileSignature.of(url.path)
        return lastSeen.withLock { $0 != now }
    }

    private func readFile() throws -> (values: [String: Data], signature: FileSignature?) {
        // The file is replaced, never rewritten in place: a signature that is the same before and
        // after the read names the contents read.
        for _ in 0..<8 {
            let before = FileSignature.of(url.path)
            let data: Data?
            do {
                data = try AtomicFile.readIfPresent(from: url)
            } catch let error as FileAccessError {
                throw PreferencesError(.fileAccess, key: nil, reason: error.description)
            }
            guard before == FileSignature.of(url.path) else { continue }
            lastSeen.withLock { $0 = before }
            guard let data else { return ([:], nil) }
            do {
                return (try PreferencesFileFormat.parse(data), before)
            } catch {
                throw PreferencesError(
                    .damagedFile, key: nil,
                    reason: "\(url.path) is not a JSON object (\(error.reason) at byte \(error.offset))"
                )
            }
        }
        throw PreferencesError(.fileAccess, key: nil, reason: "\(url.path) kept changing while being read")
    }
}
