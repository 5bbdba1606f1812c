import Dispatch
import Foundation

/// Tells whether code runs where the main actor's work runs: the main thread, or the main dispatch
/// queue that drains the main actor's jobs (on Linux, a test runner or a server may drain it on
/// another thread than the process's first).
enum MainQueue {
    /// A value the main queue carries, so that code running as one of its blocks can find it.
    private static let marker: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Whether the caller runs on the main thread or as a block of the main dispatch queue.
    static var isCurrent: Bool {
        Thread.isMainThread || DispatchQueue.getSpecific(key: marker) == true
    }
}
