import Foundation
import OpenSwiftData
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Keeps engines on one store file, in one process or in several, from synchronizing at the same
/// time: a synchronization holds an exclusive lock (`flock`) on a file beside the store,
/// `<store>.sync-lock`, and another engine's waits until it ends.
///
/// Two engines that synchronized at once would push the same pending changes and apply pulled
/// rows over each other's records; one after the other, each starts from what the other left.
final class SyncStoreLock {
    private var descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Waits for the lock of the container's store file; a store kept in memory, which no other
    /// process can open, has none to take.
    ///
    /// - Throws: `CancellationError` when the waiting task is cancelled; ``SyncError`` with
    ///   ``SyncError/Kind/storeFailure`` when the lock file cannot be opened or locked.
    static func acquire(for container: ModelContainer) async throws -> SyncStoreLock {
        guard let configuration = container.configurations.first, !configuration.isStoredInMemoryOnly, configuration.url.isFileURL else {
            return SyncStoreLock(descriptor: -1)
        }
        let path = configuration.url.path + ".sync-lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw SyncError(.storeFailure, "The sync engine cannot open its lock file \(path): \(String(cString: strerror(errno)))")
        }
        let lock = SyncStoreLock(descriptor: descriptor)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                throw SyncError(.storeFailure, "The sync engine cannot lock \(path): \(String(cString: strerror(code)))")
            }
            // Another engine synchronizes this store: its synchronization ends soon.
            try await Task.sleep(for: .milliseconds(10))
        }
        return lock
    }

    /// Lets the next engine synchronize.
    func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit {
        release()
    }
}
