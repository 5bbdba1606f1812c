import Foundation
import OpenSwiftData

/// Wakes continuous synchronization as soon as a context of this process saves to the engine's
/// container; saves of other processes are found by looking at the history now and then.
final class LocalSaveSignal {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    private let observer: any NSObjectProtocol

    init(container: ModelContainer) {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let continuation = continuation
        // The closure runs on the saving context's thread, where reading its container is safe.
        observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: nil, queue: nil) { [weak container] note in
            guard let context = note.object as? ModelContext, let container, context.container === container else { return }
            continuation.yield()
        }
    }

    deinit {
        NotificationCenter.default.removeObserver(observer)
        continuation.finish()
    }

    /// Waits until a save, or at most `seconds`.
    func wait(seconds: Double) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [stream] in
                for await _ in stream { return }
            }
            group.addTask { try? await Task.sleep(for: .seconds(seconds)) }
            await group.next()
            group.cancelAll()
        }
    }
}
