import Foundation

/// Where a ``SyncEngine`` synchronizes, as whom, and what.
public struct SyncConfiguration: Sendable {
    /// The sync server's base URL, such as `http://127.0.0.1:8080`.
    public var serverURL: URL
    /// The bearer token that names the user to the server.
    public var token: String
    /// The models that stay on this device, by name.
    public var excludedModels: Set<String>
    /// The author the store's history records for the changes the engine applies, which it never
    /// sends back.
    public var author: String
    /// The most model changes one push gathers from several saves. One save is never split
    /// between pushes; a save larger than the server takes in one request goes in parts, which
    /// the server applies together.
    public var pushBatchSize: Int
    /// The most rows one page of a pull carries.
    public var pullPageSize: Int
    /// How long one request may take, in seconds.
    public var requestTimeout: TimeInterval
    /// How often continuous sync (``SyncEngine/start()``) looks for changes other processes saved
    /// to the store, in seconds (this process's saves wake it at once).
    public var localChangeInterval: TimeInterval
    /// The longest wait between retries after a failure, in seconds.
    public var maximumRetryDelay: TimeInterval

    /// A configuration for the server at `serverURL`, with the user's `token`.
    public init(
        serverURL: URL, token: String, excludedModels: Set<String> = [], author: String = "OpenSwiftDataSync",
        pushBatchSize: Int = 500, pullPageSize: Int = 2000, requestTimeout: TimeInterval = 60,
        localChangeInterval: TimeInterval = 0.25, maximumRetryDelay: TimeInterval = 30
    ) {
        self.serverURL = serverURL
        self.token = token
        self.excludedModels = excludedModels
        self.author = author
        self.pushBatchSize = max(1, pushBatchSize)
        self.pullPageSize = max(1, pullPageSize)
        self.requestTimeout = requestTimeout
        self.localChangeInterval = localChangeInterval
        self.maximumRetryDelay = maximumRetryDelay
    }
}
