import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import Testing

/// How connections reach the server: TCP or a Unix-domain socket, and over TCP TLS as the
/// configuration and the URL's `sslmode` and `sslrootcert` ask, with libpq's meanings, against the
/// test server's certificate (signed by a throwaway authority, valid for the name
/// localhost only).
@Suite struct PostgresTransportTests {
    /// Opens a container on `configuration`, saves a model, and returns whether its connections
    /// use TLS.
    private func openAndSave(_ configuration: PostgresStoreConfiguration) throws -> Bool? {
        let container = try ModelContainer(for: Schema([Poster.self]), configurations: [configuration])
        let context = ModelContext(container)
        context.insert(Poster(label: "over \(configuration.url.query ?? "plain")"))
        try context.save()
        return try withExtendedLifetime(container) { try PostgresServer.usesTLS(configuration) }
    }

    /// Whether the namespace of `configuration` exists on the server.
    private func namespaceExists(_ configuration: PostgresStoreConfiguration) throws -> Bool {
        try PostgresServer.sql("SELECT count(*)::text FROM pg_namespace WHERE nspname = '\(configuration.name)'") == ["1"]
    }

    @Test(.enabled(if: PostgresServer.certificateAuthority != nil, PostgresServer.tlsSkipMessage))
    func theLoopbackIsPlainUnlessTLSIsAskedFor() throws {
        #expect(try openAndSave(PostgresServer.freshConfiguration(query: "")) == false)
        #expect(try openAndSave(PostgresServer.freshConfiguration(query: "sslmode=prefer")) == false)
        #expect(try openAndSave(PostgresServer.freshConfiguration(query: "sslmode=disable")) == false)
    }

    @Test(.enabled(if: PostgresServer.certificateAuthority != nil, PostgresServer.tlsSkipMessage))
    func requireEncryptsWithoutCheckingTheCertificateAsLibpqDoes() throws {
        #expect(try openAndSave(PostgresServer.freshConfiguration(query: "sslmode=require")) == true)
    }

    @Test(.enabled(if: PostgresServer.certificateAuthority != nil, PostgresServer.tlsSkipMessage))
    func aCertificateCheckedAgainstTheNamedAuthorityIsAccepted() throws {
        let authority = try #require(PostgresServer.certificateAuthority)
        #expect(try openAndSave(PostgresServer.freshConfiguration(query: "sslmode=verify-full&sslrootcert=\(authority)", host: "localhost")) == true)
        #expect(try openAndSave(PostgresServer.freshConfiguration(query: "sslmode=verify-ca&sslrootcert=\(authority)")) == true)
        #expect(try openAndSave(PostgresServer.freshConfiguration(query: "sslrootcert=\(authority)", host: "localhost", transportSecurity: .required)) == true)
        // require with a root certificate checks the chain, as libpq does.
        #expect(try openAndSave(PostgresServer.freshConfiguration(query: "sslmode=require&sslrootcert=\(authority)")) == true)
    }

    /// A certificate the system does not trust, or one for another host name, is refused before
    /// anything is sent: `storeUnavailable` saying so, nothing created.
    @Test(.enabled(if: PostgresServer.certificateAuthority != nil, PostgresServer.tlsSkipMessage))
    func anUntrustedCertificateOrAnotherHostNameIsRefused() throws {
        let authority = try #require(PostgresServer.certificateAuthority)
        let untrusted = [
            try PostgresServer.freshConfiguration(query: "", transportSecurity: .required),
            try PostgresServer.freshConfiguration(query: "sslmode=verify-full"),
            // The certificate names localhost, not 127.0.0.1: the chain is good, the name is not.
            try PostgresServer.freshConfiguration(query: "sslmode=verify-full&sslrootcert=\(authority)"),
            try PostgresServer.freshConfiguration(query: "sslrootcert=\(authority)", transportSecurity: .required),
        ]
        for configuration in untrusted {
            let error = #expect(throws: SwiftDataError.storeUnavailable, "\(configuration.url)") {
                try ModelContainer(for: Schema([Poster.self]), configurations: [configuration])
            }
            #expect(error?.description.contains("certificate") == true, "\(String(describing: error))")
            #expect(try !namespaceExists(configuration))
        }
        // Checking the chain alone accepts it under the other name.
        #expect(try openAndSave(PostgresServer.freshConfiguration(query: "sslmode=verify-ca&sslrootcert=\(authority)")) == true)
    }

    /// libpq's form for a Unix-domain socket, the socket's directory as the host (in the query or
    /// percent-encoded in the URL), reaches the server without the network.
    @Test(.enabled(if: PostgresServer.socketURL != nil, PostgresServer.socketSkipMessage))
    func aUnixDomainSocketReachesTheServer() throws {
        let url = try #require(PostgresServer.socketURL)
        let components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        let directory = try #require(components.queryItems?.first { $0.name == "host" }?.value)
        let port = try #require(components.queryItems?.first { $0.name == "port" }?.value)
        let encodedHost = directory.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? directory
        let forms = [url, try #require(URL(string: "postgres://osd@\(encodedHost):\(port)/osd"))]
        for form in forms {
            let name = try PostgresServer.freshConfiguration("sock").name
            let configuration = PostgresStoreConfiguration(name: name, url: form, transportSecurity: .required)
            do {
                let container = try ModelContainer(for: Schema([Poster.self]), configurations: [configuration])
                let context = ModelContext(container)
                context.insert(Poster(label: "local"))
                try context.save()
                // A socket's connections have no client port (-1), a TCP connection's a real one.
                let ports = try PostgresServer.sql("SELECT string_agg(DISTINCT client_port::text, ',') FROM pg_stat_activity WHERE application_name = 'OpenSwiftData \(name)'")
                #expect(ports == ["-1"], "\(form)")
                withExtendedLifetime(container) {}
            }
            let reopened = ModelContext(try ModelContainer(for: Schema([Poster.self]), configurations: [configuration]))
            #expect(try reopened.fetch(FetchDescriptor<Poster>()).map(\.label) == ["local"], "\(form)")
        }
    }

    /// The URL's `application_name` names the store's connections in `pg_stat_activity`, and a
    /// `connect_timeout` in whole seconds is accepted, as libpq takes them.
    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func theURLsApplicationNameAndConnectTimeoutAreTaken() throws {
        let application = "billing-" + UUID().uuidString.prefix(8).lowercased()
        let configuration = try PostgresServer.freshConfiguration(query: "application_name=\(application)&connect_timeout=5")
        let container = try ModelContainer(for: Schema([Poster.self]), configurations: [configuration])
        let context = ModelContext(container)
        context.insert(Poster(label: "named"))
        try context.save()
        let named = try PostgresServer.sql("SELECT (count(*) > 0)::text FROM pg_stat_activity WHERE application_name = '\(application)'")
        #expect(named == ["true"])
        withExtendedLifetime(container) {}
    }

    @Test func aSocketDirectoryWithoutAServerIsStoreUnavailable() throws {
        let configuration = PostgresStoreConfiguration(url: try #require(URL(string: "postgres://osd@/osd?host=/nonexistent-\(UUID().uuidString)")))
        let error = #expect(throws: SwiftDataError.storeUnavailable) {
            try ModelContainer(for: Schema([Poster.self]), configurations: [configuration])
        }
        #expect(error?.description.contains("nonexistent") == true, "\(String(describing: error))")
    }

    @Test func anUnreadableRootCertificateOrAnUnknownModeIsABadURL() throws {
        for query in ["sslmode=verify-full&sslrootcert=/nonexistent/ca.pem", "sslmode=sometimes", "port=0", "port=five", "connect_timeout=ten", "connect_timeout=1.5"] {
            let configuration = PostgresStoreConfiguration(url: try #require(URL(string: "postgres://osd@127.0.0.1:5432/osd?\(query)")))
            #expect(throws: SwiftDataError.invalidStoreURL, "\(query)") {
                try ModelContainer(for: Schema([Poster.self]), configurations: [configuration])
            }
        }
    }
}
