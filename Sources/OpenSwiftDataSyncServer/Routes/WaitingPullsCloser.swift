import ServiceLifecycle

/// Ends the waiting pulls (`GET /v1/changes?wait=…`) when the server begins to stop, so that the
/// HTTP server's graceful shutdown answers them at once instead of at the end of their waits.
struct WaitingPullsCloser: Service {
    let announcer: ChangeAnnouncer

    func run() async {
        // Returns when the shutdown begins, or when the task is cancelled: either way, the server
        // is stopping.
        try? await gracefulShutdown()
        await announcer.close()
    }
}
