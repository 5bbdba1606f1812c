import Foundation
import OpenSwiftDataPostgres
import Testing

/// A fresh namespace of the test server, reached through a ``CuttingProxy`` and directly.
struct ProxiedNamespace {
    let proxy: CuttingProxy
    /// The namespace, reached through the proxy.
    let throughProxy: PostgresStoreConfiguration
    /// The same namespace, reached directly: what the server really holds.
    let direct: PostgresStoreConfiguration

    /// A new namespace whose name starts with `prefix`, and a proxy to the server.
    init(_ prefix: String) throws {
        let url = try #require(PostgresServer.url)
        var components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        proxy = try CuttingProxy(toServerPort: components.port ?? 5432)
        direct = try PostgresServer.freshConfiguration(prefix)
        components.host = "127.0.0.1"
        components.port = proxy.port
        throughProxy = PostgresStoreConfiguration(name: direct.name, url: try #require(components.url))
    }
}
