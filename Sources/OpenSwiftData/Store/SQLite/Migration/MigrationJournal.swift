import CSQLite
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
///
/// A third file, `<store>.osd-migration-plan`, exists (locked) from before the backup is taken
/// until the marker is gone: while it does, containers that are not the plan's own refuse to save
/// (``refusalOfSaves(to:)``), since a save landing after the backup would be undone by a failure.
final class MigrationJournal {
    let storePath: String
    private let lock: Int32
    /// The descriptor that holds `<store>.osd-migration-plan` locked.
    private let planLock: Int32

    var backupPath: String { Self.backupPath(of: storePath) }

    static func backupPath(of store: String) -> String { store + ".osd-migration-backup" }
    static func markerPath(of store: String) -> String { store + ".osd-migration" }
    static func planPath(of store: String) -> String { store + ".osd-migration-plan" }
    private static func restorePath(of store: String) -> String { store + ".osd-migration-restore" }

    /// Stores this process is migrating now: opens of them during the migration (its stages)
    /// are part of it, not a recovery.
    private static let active = LockedValue<Set<String>>([])

    /// Starts a migration of the store at `path`: checkpoints it, copies it to the backup, then
    /// creates and locks the marker. From here until ``finish()`` a kill leaves the backup in charge.
    ///
    /// Other containers' saves are refused from before the checkpoint on: the plan file is locked
    /// first, then the checkpoint waits for SQLite's write lock, so a save that began before the
    /// file existed has committed (and is in the backup) and every later one sees the file.
    init(beginningMigrationOf path: String) throws {
        storePath = path
        let note = "OpenSwiftData migration in progress, process \(ProcessInfo.processInfo.processIdentifier); the store before it is \(Self.backupPath(of: path))\n"
        let plan = try Self.lockedFile(Self.planPath(of: path), note: note)
        do {
            try Self.checkpoint(path, beforeCopying: true)
            try DurableFile.copy(path, to: Self.backupPath(of: path))
            // The marker appears already locked: it is locked under another name, then renamed.
            let staging = Self.markerPath(of: path) + ".partial"
            let descriptor = try Self.lockedFile(staging, note: note)
            // The note is for people; the marker's existence is what counts, made durable by the rename.
            do {
                try DurableFile.rename(staging, to: Self.markerPath(of: path))
            } catch {
                close(descriptor)
                unlink(staging)
                throw error
            }
            lock = descriptor
        } catch {
            unlink(Self.planPath(of: path))
            close(plan)
            throw error
        }
        planLock = plan
        Self.active.withValue { _ = $0.insert(path) }
    }

    deinit {
        close(lock)
        close(planLock)
        Self.active.withValue { _ = $0.remove(storePath) }
    }

    /// A new file at `path`, locked exclusively, holding `note`; its descriptor.
    private static func lockedFile(_ path: String, note: String) throws -> Int32 {
        unlink(path)
        let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw SwiftDataError(.migrationFailed, reason: "Creating \(path) failed: \(String(cString: strerror(errno))).") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw SwiftDataError(.migrationFailed, reason: "Locking \(path) failed: \(String(cString: strerror(errno))).")
        }
        _ = note.withCString { write(descriptor, $0, strlen($0)) }
        return descriptor
    }

    /// Ends a migration that completed: the store is checkpointed (its pages synced), then the
    /// marker is removed, which is the moment the migration counts as done, then the backup, then
    /// the plan file (other containers may save again).
    func finish() throws {
        try Self.checkpoint(storePath, beforeCopying: false)
        try Self.removeJournal(of: storePath)
    }

    /// Ends a migration that failed: the backup's contents replace the store's, then the marker,
    /// the backup and the plan file go.
    ///
    /// The backup is written into the store through SQLite, in one transaction, so that other
    /// containers that have the store open go on using it, now as it was before the migration.
    /// If that fails, the backup file replaces the store file, as a recovering open does.
    func rollBack() throws {
        do {
            try Self.restoreInPlace(storePath)
            try Self.removeJournal(of: storePath)
        } catch {
            try Self.restore(storePath)
        }
    }

    /// Ends a migration's journal: the marker goes (the store is whole from this instant), then
    /// the backup, then the plan file (other containers may save again).
    private static func removeJournal(of path: String) throws {
        try DurableFile.remove(markerPath(of: path))
        try DurableFile.remove(backupPath(of: path))
        unlink(planPath(of: path))
    }

    /// Why a container that is not part of a plan may not save to the store at `path` now, or
    /// `nil` when it may: a plan is migrating the store (its saves would land after the backup and
    /// be undone if the plan fails), or a plan was interrupted (the next open restores the backup,
    /// undoing any save made before it). Called by saves that found the plan file
    /// (``planPath(of:)``), under SQLite's write lock; the saves of the plan's own stages, which
    /// run under the plan's migration lock (``lockedStore``), may save.
    ///
    /// Only files that are not there let a save through: a plan file or marker that cannot be
    /// opened or looked at (its permissions, a link that leads nowhere) refuses it, as a plan
    /// may be behind it.
    static func refusalOfSaves(to path: String) -> String? {
        guard lockedStore != path else { return nil }
        let plan = planPath(of: path)
        let descriptor = open(plan, O_RDONLY)
        guard descriptor >= 0 else {
            // Gone since the save saw it: the plan ended (its last step removes it).
            let error = errno
            return DurableFile.isAbsence(error) ? nil : unreadable(plan, of: path, error)
        }
        defer { close(descriptor) }
        if flock(descriptor, LOCK_SH | LOCK_NB) != 0 {
            return """
                A SchemaMigrationPlan is migrating the store at \(path) (\(plan)), and would undo this save if it failed; \
                nothing was saved. Save again once the migration has finished (a container with the older models may then \
                need to be opened again with the newer ones).
                """
        }
        flock(descriptor, LOCK_UN)
        guard DurableFile.mayExist(markerPath(of: path)) else { return nil }
        return """
            A migration of the store at \(path) was interrupted (\(markerPath(of: path)) remains), and the next container \
            to open the store puts back the store as it was before it, which would undo this save; nothing was saved. \
            Open a new container on the store, then save again.
            """
    }

    /// The refusal of a save when `file`, a file of a plan's on the store at `path`, cannot be
    /// read (`error`).
    private static func unreadable(_ file: String, of path: String, _ error: Int32) -> String {
        """
            A SchemaMigrationPlan may be migrating the store at \(path): \(file) exists but cannot be read \
            (\(String(cString: strerror(error)))), so nothing was saved. Make the file readable, or remove it if no plan \
            is running, then save again.
            """
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
            // The plan file of a plan that died stays while its marker does: other containers
            // must not save to a store the recovery is about to put back.
            if !DurableFile.exists(markerPath(of: path)) { unlink(planPath(of: path)) }
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
        try removeJournal(of: path)
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
    ///
    /// `beforeCopying` the file, it first waits for the save another connection may be writing
    /// (it takes SQLite's write lock once, and commits a change of nothing, which every other
    /// connection's next save sees: ``SQLiteStore/checkNoPlanIsMigrating()``), and throws unless every frame of the WAL was written
    /// back (a reader kept an older snapshot for longer than the busy timeout): a copy of the file
    /// alone would then miss saves. (A reader of the newest snapshot only keeps the WAL from being
    /// truncated; the file is then whole all the same.) A checkpoint that could not start, because
    /// another connection was checkpointing, runs again (``writeBack(_:)``): it once counted as
    /// complete, and a failing plan's copy then lacked the saves made just before it.
    private static func checkpoint(_ path: String, beforeCopying: Bool) throws {
        do {
            let connection = try SQLiteConnection(path: path, readOnly: false, create: false)
            if beforeCopying {
                try connection.execute("BEGIN IMMEDIATE; UPDATE osd_metadata SET value = value; COMMIT")
            }
            let (frames, writtenBack) = try writeBack(connection)
            // Every frame written back; `-1` for both when the checkpoint never ran.
            guard !beforeCopying || (frames >= 0 && frames == writtenBack) else {
                throw SwiftDataError(.storeIsBusy, reason: "Other connections kept reading older states of \(path), or checkpointing it, so its WAL could not be written back before the migration. Nothing was changed; try again.")
            }
        } catch let error as SQLiteError {
            throw error.swiftDataError.adding(context: "Checkpointing \(path) for its migration")
        }
    }

    /// Runs a `TRUNCATE` checkpoint on `connection`: the frames in the WAL and those written back.
    ///
    /// Only one connection checkpoints a database at a time, and SQLite does not wait for another
    /// one's (a writer's own, after its commit) but reports `-1` frames and `-1` written back, as if
    /// nothing needed writing: such a checkpoint is run again, for up to ten seconds.
    private static func writeBack(_ connection: SQLiteConnection) throws -> (frames: Int64, writtenBack: Int64) {
        let deadline = Date().addingTimeInterval(10)
        while true {
            let result = try connection.statement("PRAGMA wal_checkpoint(TRUNCATE)")
            defer { result.reset() }
            // One row: busy (1 when it could not finish), frames in the WAL, frames written back.
            guard try result.step() else { return (-1, -1) }
            let (frames, writtenBack) = (result._int64(1), result._int64(2))
            if frames >= 0 || Date() >= deadline { return (frames, writtenBack) }
            usleep(1_000)
        }
    }

    /// Writes the backup's pages into the store through SQLite's backup API, in one transaction
    /// of the store's, synced at its commit, then checkpoints the store.
    private static func restoreInPlace(_ path: String) throws {
        do {
            // The backup is a whole database in one file: read as immutable, nothing beside it.
            let source = try StoreFileInspection.readOnlyConnection(path: backupPath(of: path))
            let destination = try SQLiteConnection(path: path, readOnly: false, create: false)
            try destination.execute("PRAGMA synchronous=FULL")
            guard let backup = sqlite3_backup_init(destination.handle, "main", source.handle, "main") else {
                throw SQLiteError(code: sqlite3_extended_errcode(destination.handle), message: destination.lastErrorMessage, sql: nil)
            }
            let stepped = sqlite3_backup_step(backup, -1)
            let finished = sqlite3_backup_finish(backup)
            guard stepped == SQLITE_DONE else { throw SQLiteError(code: stepped, message: String(cString: sqlite3_errstr(stepped)), sql: nil) }
            try destination.check(finished)
        } catch let error as SQLiteError {
            throw error.swiftDataError.adding(context: "Restoring \(path) from its backup")
        }
        try checkpoint(path, beforeCopying: false)
    }

    /// Whether an open descriptor still is the file at `path` (not unlinked or replaced since).
    private static func isSameFile(_ descriptor: Int32, path: String) -> Bool {
        var open = stat()
        var named = stat()
        guard fstat(descriptor, &open) == 0, stat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }
}
