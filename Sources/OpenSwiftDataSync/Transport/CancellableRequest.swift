import Foundation
import OpenSwiftData
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request whose awaiting task, once cancelled, stops waiting for it at once.
///
/// On Linux, `URLSession.data(for:)` cancels its request from inside the awaiting task's
/// cancellation, and `URLSessionTask.cancel()` waits there for the session's queue: when the
/// answer arrives at that moment, the session's queue waits in turn for the task being cancelled,
/// and both wait forever (a continuous `SyncEngine` stopped just as its wait for the server ended).
/// Cancelling the request later instead can reach it after it finished, which FoundationNetworking
/// stops the process for. So the request is not cancelled: the awaiting task returns at once with
/// `URLError(.cancelled)`, and the request ends by itself (its answer, or its timeout), unread.
final class CancellableRequest: Sendable {
    private struct State: Sendable {
        var continuation: CheckedContinuation<(Data, URLResponse), any Error>?
        var isCancelled = false
    }

    private let state = LockedValue(State())

    /// Sends `request` on `session` and returns the answer's body and response; throws the
    /// session's error, or `URLError(.cancelled)` once the awaiting task is cancelled.
    static func data(for request: URLRequest, on session: URLSession) async throws -> (Data, URLResponse) {
        let waiting = CancellableRequest()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard waiting.wait(continuation) else {
                    continuation.resume(throwing: URLError(.cancelled))
                    return
                }
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        waiting.finish(.failure(error))
                    } else if let response {
                        waiting.finish(.success((data ?? Data(), response)))
                    } else {
                        waiting.finish(.failure(URLError(.badServerResponse)))
                    }
                }
                task.resume()
            }
        } onCancel: {
            waiting.cancel()
        }
    }

    /// Keeps the continuation to resume; false when the task was cancelled first.
    private func wait(_ continuation: CheckedContinuation<(Data, URLResponse), any Error>) -> Bool {
        state.withValue { state in
            guard !state.isCancelled else { return false }
            state.continuation = continuation
            return true
        }
    }

    /// Resumes the awaiting task with the request's outcome, unless it stopped waiting.
    private func finish(_ outcome: Result<(Data, URLResponse), any Error>) {
        let continuation = state.withValue { state in
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: outcome)
    }

    /// Resumes the awaiting task with `URLError(.cancelled)`; the request's outcome is dropped.
    private func cancel() {
        let continuation = state.withValue { state in
            defer { state.continuation = nil }
            state.isCancelled = true
            return state.continuation
        }
        continuation?.resume(throwing: URLError(.cancelled))
    }
}
