import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The on-disk protocol that makes a planned migration all or nothing even when the process is
/// killed at any instant: the store is finished, or put back and migrated again on the next open.
///
/// Two files beside the store tell where a migration stands (docs/StorageLayout.md):
/// - `<store>.osd-migration-backup`: the store as it was before the migration, checkpointed and
///   copied (complete or absent: written as `.partial`, synced, renamed).
/// - `<store>.osd-migration`: the marker, created only once the backup is complete and removed
///   first when the migration has finished. While it exists the store may be half-migrated. The
///   migrating process holds an exclusive `flock` on it, which the system releases when the
///   process dies, so other processes can tell a migration in progress from an interrupted one.
///
/// Every open of a store file first calls ``recover(storeAt:)``: a marker with its backup means an
/// interrupted migration, so the backup replaces the store and both files go; a backup without a
/// marker is a leftover of a migration that finished (or never started) and goes; a marker without
/// a backup (removed by hand) is an error, since the store may hold half a migration.
final class MigrationJournal {
    let storePath: String
    private let lock: Int32

    var backupPath: String { Self.backupPath(of: storePath) }

    static func backupPath(of store: String) -> String { store + ".osd-migration-backup" }
    static func markerPath(of store: String) -> String { store + ".osd-migration" }
    private static func restorePath(of store: String) -> String { store + ".osd-migration-restore" }

    /// Stores this process is migrating now: opens of them during the migration (its stages)
    /// are part of it, not a recovery.
    private static let active = LockedValue<Set<String>>([])

    /// Starts a migration of the store at `path`: checkpoints it, copies it to the backup, then
    /// creates and locks the marker. From here until ``finish()`` a kill leaves the backup in charge.
    init(beginningMigrationOf path: String) throws {
        storePath = path
        try Self.checkpoint(path)
        try DurableFile.copy(path, to: Self.backupPath(of: path))
        // The marker appears already locked: it is locked under another name, then renamed.
        let staging = Self.markerPath(of: path) + ".partial"
        unlink(staging)
        let descriptor = open(staging, O_RDWR | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw SwiftDataError(.migrationFailed, reason: "Creating \(staging) failed: \(String(cString: strerror(errno))).") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw SwiftDataError(.migrationFailed, reason: "Locking \(staging) failed: \(String(cString: strerror(errno))).")
        }
        let note = "OpenSwiftData migration in progress, process \(ProcessInfo.processInfo.processIdentifier); the store before it is \(Self.backupPath(of: path))\n"
        // The note is for people; the marker's existence is what counts, made durable by the rename.
        _ = note.withCString { write(descriptor, $0, strlen($0)) }
        do {
            try DurableFile.rename(staging, to: Self.markerPath(of: path))
        } catch {
            close(descriptor)
            unlink(staging)
            throw error
        }
        lock = descriptor
        Self.active.withValue { _ = $0.insert(path) }
    }

    deinit {
        close(lock)
        Self.active.withValue { _ = $0.remove(storePath) }
    }

    /// Ends a migration that completed: the store is checkpointed (its pages synced), then the
    /// marker is removed, which is the moment the migration counts as done, then the backup.
    func finish() throws {
        try Self.checkpoint(storePath)
        try DurableFile.remove(Self.markerPath(of: storePath))
        try DurableFile.remove(backupPath)
    }

    /// Ends a migration that failed: the backup replaces the store, then both files go.
    func rollBack() throws {
        try Self.restore(storePath)
    }

    /// Brings the store at `path` to a state that is whole before it is opened: see the type's
    /// documentation. Waits while another process is migrating it.
    static func recover(storeAt path: String) throws {
        guard !active.withValue({ $0.contains(path) }) else { return }
        // Half-written files of a migration that died; a live one (which holds the migration
        // lock) is writing them now.
        let removeLeftovers = {
            for leftover in [backupPath(of: path) + ".partial", markerPath(of: path) + ".partial", restorePath(of: path) + ".partial", restorePath(of: path)] {
                unlink(leftover)
            }
        }
        if lockedStore == path { removeLeftovers() } else { ifNoMigrationIsRunning(of: path, removeLeftovers) }
        let marker = markerPath(of: path)
        if DurableFile.exists(marker) {
            let descriptor = open(marker, O_RDONLY)
            // A marker that cannot be read must not be taken for absent: the backup would go.
            guard descriptor >= 0 || errno == ENOENT else {
                throw SwiftDataError(.migrationFailed, reason: "The migration marker \(marker) cannot be opened: \(String(cString: strerror(errno))). Nothing was changed.")
            }
            if descriptor >= 0 {
                defer { close(descriptor) }
                // Blocks while a live process migrates the store; then the marker is either gone
                // (it finished or rolled back) or left by a process that died.
                guard flock(descriptor, LOCK_EX) == 0 else {
                    throw SwiftDataError(.migrationFailed, reason: "The migration marker \(marker) cannot be locked: \(String(cString: strerror(errno))). Nothing was changed.")
                }
                if isSameFile(descriptor, path: marker) {
                    guard DurableFile.exists(backupPath(of: path)) else {
                        throw SwiftDataError(.migrationFailed, reason: "A migration of the store at \(path) was interrupted and its backup \(backupPath(of: path)) is missing, so the store may hold a half-finished migration. Restore the store from a backup of your own, then remove \(marker). Nothing was changed.")
                    }
                    try restore(path)
                    return
                }
            }
        }
        if DurableFile.exists(backupPath(of: path)) { try DurableFile.remove(backupPath(of: path)) }
    }

    /// Puts the backup in the store's place (the store file is replaced in one rename; its WAL and
    /// shared memory go first), then removes the marker and the backup.
    private static func restore(_ path: String) throws {
        let staging = restorePath(of: path)
        try DurableFile.copy(backupPath(of: path), to: staging)
        for suffix in ["-wal", "-shm"] { try DurableFile.remove(path + suffix) }
        try DurableFile.rename(staging, to: path)
        try DurableFile.remove(markerPath(of: path))
        try DurableFile.remove(backupPath(of: path))
    }

    /// The store whose migration lock the current task holds, if any: the opens of a plan's stages
    /// run under their plan's lock, and must not wait for it.
    @TaskLocal static var lockedStore: String?

    /// Runs `body` while holding the store's migration lock: `<store>.osd-migration-lock`, locked
    /// with an exclusive `flock` by one migration at a time (a plan, or the lightweight changes of
    /// an open), across processes and the threads of one (each open of the file is its own lock).
    /// The holder removes the file before it lets go; a waiter that then gets a lock on the removed
    /// file opens the new one instead. Within `body`, ``lockedStore`` is `path`.
    static func lockingMigrations<R>(of path: String, _ body: () throws -> R) throws -> R {
        let lockPath = path + ".osd-migration-lock"
        while true {
            let descriptor = open(lockPath, O_RDWR | O_CREAT, 0o644)
            guard descriptor >= 0 else {
                throw SwiftDataError(.migrationFailed, reason: "Creating the migration lock \(lockPath) failed: \(String(cString: strerror(errno))). Nothing was changed.")
            }
            var locked = flock(descriptor, LOCK_EX)
            while locked != 0 && errno == EINTR { locked = flock(descriptor, LOCK_EX) }
            guard locked == 0 else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw SwiftDataError(.migrationFailed, reason: "Locking the migration lock \(lockPath) failed: \(reason). Nothing was changed.")
            }
            guard isSameFile(descriptor, path: lockPath) else {
                close(descriptor)
                continue
            }
            defer {
                unlink(lockPath)
                close(descriptor)
            }
            return try $lockedStore.withValue(path) { try body() }
        }
    }

    /// Runs `body` holding the store's migration lock if no one holds it now; otherwise does
    /// nothing.
    private static func ifNoMigrationIsRunning(of path: String, _ body: () -> Void) {
        let lockPath = path + ".osd-migration-lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT, 0o644)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0, isSameFile(descriptor, path: lockPath) else { return }
        body()
        unlink(lockPath)
    }

    /// Writes the WAL into the store file and syncs it.
    private static func checkpoint(_ path: String) throws {
        do {
            let connection = try SQLiteConnection(path: path, readOnly: false, create: false)
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        } catch let error as SQLiteError {
            throw error.swiftDataError.adding(context: "Checkpointing \(path) for its migration")
        }
    }

    /// Whether an open descriptor still is the file at `path` (not unlinked or replaced since).
    private static func isSameFile(_ descriptor: Int32, path: String) -> Bool {
        var open = stat()
        var named = stat()
        guard fstat(descriptor, &open) == 0, stat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }
}
