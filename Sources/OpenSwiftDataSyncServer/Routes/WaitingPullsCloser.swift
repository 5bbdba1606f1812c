import ServiceLifecycle

/// Ends the waiting pulls (`GET /v1/changes?wait=…`) when the server begins to stop, so that the
/// HTTP server's graceful shutdown answers them at once instead of at the end of their waits.
struct WaitingPullsCloser: Service {
    let announcer: ChangeAnnouncer

    func run() async {
        do {
            try await gracefulShutdown()
        } catch {
            // `gracefulShutdown()` throws only when the task is cancelled: the server is stopping
            // then too, and its waits end all the same.
        }
        await announcer.close()
    }
}
