import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The engine's requests to the server: JSON over HTTP, the token as a bearer token, every failure
/// a ``SyncError``.
struct SyncTransport: Sendable {
    let configuration: SyncConfiguration
    let session: URLSession
    /// The session of waits for changes (long polls). A wait whose engine stopped is left to end by
    /// itself (``CancellableRequest``): on a session of their own, such waits never hold up a push
    /// or a pull behind the session's connections per server.
    let waitSession: URLSession

    init(configuration: SyncConfiguration) {
        self.configuration = configuration
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = configuration.requestTimeout
        sessionConfiguration.timeoutIntervalForResource = configuration.requestTimeout * 2
        let waitConfiguration = URLSessionConfiguration.ephemeral
        waitConfiguration.httpMaximumConnectionsPerHost = 64
        #if canImport(FoundationNetworking)
        for sessions in [sessionConfiguration, waitConfiguration] {
            sessions.httpAdditionalHeaders = ["Authorization": Self.authorization(configuration.token)]
        }
        #endif
        session = URLSession(configuration: sessionConfiguration)
        waitSession = URLSession(configuration: waitConfiguration)
    }

    /// The `Authorization` header's value.
    private static func authorization(_ token: String) -> String { "Bearer \(token)" }

    func hello(_ request: HelloRequest) async throws(SyncError) -> HelloResponse {
        try decode(HelloResponse.self, from: try await send("POST", SyncPath.hello, body: try encode(request, for: SyncPath.hello)), path: SyncPath.hello)
    }

    /// Shares a model, or stops sharing it; answers the model's shares.
    func share(_ request: ShareRequest) async throws(SyncError) -> SharesResponse {
        try decode(SharesResponse.self, from: try await send("POST", SyncPath.shares, body: try encode(request, for: SyncPath.shares)), path: SyncPath.shares)
    }

    /// The shares the user takes part in; with `id`, those of that model.
    func shares(of id: String?) async throws(SyncError) -> SharesResponse {
        let unreserved = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let query = id.flatMap { $0.addingPercentEncoding(withAllowedCharacters: unreserved) }.map { "?id=\($0)" } ?? ""
        return try decode(SharesResponse.self, from: try await send("GET", SyncPath.shares + query, body: nil), path: SyncPath.shares)
    }

    private func encode(_ request: some Encodable, for path: String) throws(SyncError) -> Data {
        do {
            return try JSONEncoder().encode(request)
        } catch {
            throw SyncError(.storeFailure, "A request to \(path) could not be encoded: \(error)")
        }
    }

    private func decode<Message: Decodable>(_ type: Message.Type, from data: Data, path: String) throws(SyncError) -> Message {
        do {
            return try JSONDecoder().decode(Message.self, from: data)
        } catch {
            throw SyncError(.unreachable, "The server's answer to \(path) cannot be read: \(error)")
        }
    }

    func push(_ request: PushRequest) async throws(SyncError) -> PushResponse {
        let body: Data
        do {
            body = try request.jsonData()
        } catch {
            throw SyncError(.storeFailure, "A request to \(SyncPath.push) could not be encoded: \(error)")
        }
        return try read(PushResponse.self, from: try await send("POST", SyncPath.push, body: body), path: SyncPath.push)
    }

    /// The rows changed after `cursor`; with `wait`, the server holds the request up to that many
    /// seconds until something changes.
    func changes(client: String, after cursor: Int64, limit: Int, wait: Int = 0) async throws(SyncError) -> PullResponse {
        let query = "?client=\(client)&after=\(cursor)&limit=\(limit)" + (wait > 0 ? "&wait=\(wait)" : "")
        let data = try await send(
            "GET", SyncPath.changes + query, body: nil, timeout: TimeInterval(wait) + configuration.requestTimeout, on: wait > 0 ? waitSession : session)
        return try read(PullResponse.self, from: data, path: SyncPath.changes)
    }

    private func read<Message: SyncJSONMessage>(_ type: Message.Type, from data: Data, path: String) throws(SyncError) -> Message {
        do {
            return try Message(jsonData: data)
        } catch {
            throw SyncError(.unreachable, "The server's answer to \(path) cannot be read: \(error)")
        }
    }

    /// Sends a request and returns the body of a `200 OK` answer; any other answer throws.
    private func send(_ method: String, _ path: String, body: Data?, timeout: TimeInterval? = nil, on session: URLSession? = nil) async throws(SyncError) -> Data {
        guard let url = URL(string: configuration.serverURL.absoluteString.trimmingSuffix("/") + path) else {
            throw SyncError(.unreachable, "The server URL \(configuration.serverURL) cannot take the path \(path)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = timeout ?? configuration.requestTimeout
        // On Linux the sessions carry the token: FoundationNetworking converts a request's own
        // headers to `[AnyHashable: Any]` as it starts each request, the step a test run once
        // stopped in (a dynamic cast trapped; swift-corelibs-foundation, Swift 6.3.1). Waits, the
        // most frequent requests, then carry no header of their own. Apple's URL loading system
        // reserves `Authorization` in `httpAdditionalHeaders`, so there the request carries it.
        #if !canImport(FoundationNetworking)
        request.setValue(Self.authorization(configuration.token), forHTTPHeaderField: "Authorization")
        #endif
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = body
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await CancellableRequest.data(for: request, on: session ?? self.session)
        } catch {
            throw SyncError(.unreachable, "\(url.host ?? "The server") cannot be reached: \(error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            let problem = try? JSONDecoder().decode(SyncProblem.self, from: data)
            let message = problem?.message ?? "HTTP \(status) from \(path)"
            switch (status, problem?.code) {
            case (401, _): throw SyncError(.unauthorized, message)
            case (_, "schema"): throw SyncError(.schemaMismatch, message)
            case (400..<500, _): throw SyncError(.rejected, message)
            case (500..., _): throw SyncError(.serverFailure, message)
            default: throw SyncError(.unreachable, message)
            }
        }
        return data
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
