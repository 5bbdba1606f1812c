import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import Testing

/// Bad locations and namespaces that are not the container's: each a specific error, nothing
/// created or changed.
@Suite struct PostgresOpeningTests {
    @Test(arguments: [
        "http://osd@127.0.0.1:5432/osd", "postgres://127.0.0.1:5432/osd", "postgres://osd@:5432/osd",
        "postgres://osd@127.0.0.1:5432/", "postgres://osd@127.0.0.1:5432/osd?sslmode=verify-everything",
        "postgres://osd@127.0.0.1:5432/osd?keepalives=yes", "postgres://osd@127.0.0.1:5432/osd?keepalives_idle=-1",
        "postgres://osd@127.0.0.1:5432/osd?keepalives_count=many",
    ])
    func badURLsAreRefusedBeforeAnythingIsContacted(_ text: String) throws {
        let configuration = PostgresStoreConfiguration(url: try #require(URL(string: text)))
        let error = #expect(throws: SwiftDataError.invalidStoreURL) {
            try ModelContainer(for: Schema([Poster.self]), configurations: [configuration])
        }
        #expect(error?.description.contains("PostgreSQL configuration default") == true)
    }

    /// libpq refuses a query parameter it does not know; the store refuses one it does not honour
    /// as well, rather than connect without it (a misspelt `sslmode` would connect unencrypted).
    /// A password in the query never reaches the message.
    @Test(arguments: ["ssl_mode=require", "sslcert=/tmp/client.pem", "channel_binding=require", "tcp_user_timeout=10000"])
    func aQueryParameterTheStoreDoesNotHonourIsRefused(_ query: String) throws {
        let url = try #require(URL(string: "postgres://osd@127.0.0.1:5432/osd?password=s3cret&\(query)"))
        let error = #expect(throws: SwiftDataError.invalidStoreURL) {
            try ModelContainer(for: Schema([Poster.self]), configurations: [PostgresStoreConfiguration(url: url)])
        }
        let name = String(query.prefix { $0 != "=" })
        #expect(error?.description.contains("query parameter \(name) is not one OpenSwiftData reads") == true, "\(String(describing: error))")
        #expect(error?.description.contains("s3cret") == false, "the password is not shown")
    }

    @Test func badConfigurationNamesAreRefused() throws {
        let url = try #require(URL(string: "postgres://osd@127.0.0.1:5432/osd"))
        for name in ["", String(repeating: "n", count: 64), "pg_catalog"] {
            #expect(throws: SwiftDataError.invalidStoreURL) {
                try ModelContainer(for: Schema([Poster.self]), configurations: [PostgresStoreConfiguration(name: name, url: url)])
            }
        }
    }

    @Test func aRefusedConnectionIsStoreUnavailable() throws {
        // Nothing listens on port 1 of the loopback interface.
        let configuration = PostgresStoreConfiguration(url: try #require(URL(string: "postgres://osd@127.0.0.1:1/osd")))
        let error = #expect(throws: SwiftDataError.storeUnavailable) {
            try ModelContainer(for: Schema([Poster.self]), configurations: [configuration])
        }
        #expect(error?.description.contains("127.0.0.1:1") == true)
    }

    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func anUnknownUserIsAccessDenied() throws {
        let server = try #require(PostgresServer.url)
        var components = try #require(URLComponents(url: server, resolvingAgainstBaseURL: false))
        components.user = "nobody_\(UUID().uuidString.prefix(6).lowercased())"
        let configuration = PostgresStoreConfiguration(url: try #require(components.url))
        #expect(throws: SwiftDataError.storeAccessDenied) {
            try ModelContainer(for: Schema([Poster.self]), configurations: [configuration])
        }
    }

    /// The server refuses a connection past a role's limit (SQLSTATE 53300): unavailable, as when
    /// it is down, and the store opens once a connection is free.
    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func aConnectionPastTheServersLimitIsStoreUnavailable() throws {
        let role = "limited_\(UUID().uuidString.prefix(6).lowercased())"
        try PostgresServer.sql("CREATE ROLE \(role) LOGIN CONNECTION LIMIT 1")
        try PostgresServer.sql("GRANT CREATE ON DATABASE osd TO \(role)")
        defer {
            _ = try? PostgresServer.sql("DROP OWNED BY \(role) CASCADE")
            _ = try? PostgresServer.sql("DROP ROLE \(role)")
        }
        let server = try #require(PostgresServer.url)
        var components = try #require(URLComponents(url: server, resolvingAgainstBaseURL: false))
        components.user = role
        let configuration = PostgresStoreConfiguration(name: role, url: try #require(components.url), maximumReadConnections: 0)
        do {
            let first = try ModelContainer(for: Schema([Poster.self]), configurations: [configuration])
            let error = #expect(throws: SwiftDataError.storeUnavailable) {
                try ModelContainer(for: Schema([Poster.self]), configurations: [configuration])
            }
            #expect(error?.reason?.contains("too many connections") == true, "\(String(describing: error))")
            withExtendedLifetime(first) {}
        }
        // The server frees the role's slot when the first connection's backend has exited, a moment
        // after the container closed it: until then, an open is still unavailable.
        var reopened: ModelContainer?
        for _ in 0..<300 where reopened == nil {
            do {
                reopened = try ModelContainer(for: Schema([Poster.self]), configurations: [configuration])
            } catch let error as SwiftDataError where error == .storeUnavailable {
                usleep(100_000)
            }
        }
        let context = ModelContext(try #require(reopened, "opens once the first container let its connection go"))
        #expect(try context.fetchCount(FetchDescriptor<Poster>()) == 0, "opens once the first container let its connection go")
    }

    /// A role that signs in with a password (SCRAM): the right one opens the store, a wrong or
    /// missing one is access denied naming the user, and nothing is created for it.
    @Test(.enabled(if: PostgresServer.passwordURL != nil, PostgresServer.passwordSkipMessage))
    func aPasswordIsCheckedAndAWrongOneIsAccessDenied() throws {
        let url = try #require(PostgresServer.passwordURL)
        let name = "pw_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        do {
            let context = ModelContext(try ModelContainer(for: Schema([Poster.self]), configurations: [PostgresStoreConfiguration(name: name, url: url)]))
            context.insert(Poster(label: "signed in"))
            try context.save()
        }
        var wrong = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        wrong.password = "not-the-password"
        let refused = name + "_x"
        let error = #expect(throws: SwiftDataError.storeAccessDenied) {
            try ModelContainer(for: Schema([Poster.self]), configurations: [PostgresStoreConfiguration(name: refused, url: try #require(wrong.url))])
        }
        #expect(error?.description.contains("osd_password") == true, "\(String(describing: error))")
        var missing = wrong
        missing.password = nil
        let noPassword = #expect(throws: SwiftDataError.storeAccessDenied) {
            try ModelContainer(for: Schema([Poster.self]), configurations: [PostgresStoreConfiguration(name: refused, url: try #require(missing.url))])
        }
        #expect(noPassword?.description.contains("asks for a password") == true, "\(String(describing: noPassword))")
        #expect(try PostgresServer.sql("SELECT count(*)::text FROM pg_namespace WHERE nspname = '\(refused)'") == ["0"])
        let reopened = ModelContext(try ModelContainer(for: Schema([Poster.self]), configurations: [PostgresStoreConfiguration(name: name, url: url)]))
        #expect(try reopened.fetch(FetchDescriptor<Poster>()).map(\.label) == ["signed in"])
    }

    /// libpq's `user`, `password` and `dbname` in the query stand for the URL's own parts.
    @Test(.enabled(if: PostgresServer.passwordURL != nil, PostgresServer.passwordSkipMessage))
    func theUserPasswordAndDatabaseMayBeInTheQuery() throws {
        let url = try #require(PostgresServer.passwordURL)
        var components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        let user = try #require(components.user)
        let password = try #require(components.password)
        let database = String(components.path.dropFirst())
        components.user = nil
        components.password = nil
        components.path = ""
        components.queryItems = [URLQueryItem(name: "user", value: user), URLQueryItem(name: "password", value: password), URLQueryItem(name: "dbname", value: database)]
        let name = "q_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        let configuration = PostgresStoreConfiguration(name: name, url: try #require(components.url))
        let context = ModelContext(try ModelContainer(for: Schema([Poster.self]), configurations: [configuration]))
        context.insert(Poster(label: "from the query"))
        try context.save()
        #expect(try PostgresServer.sql("SELECT label FROM \(name).\"Poster\"") == ["from the query"])
    }

    /// The URL's `options` reach the server as libpq sends them: with every transaction read-only,
    /// the store opens and reads, and a save fails with the server's reason, nothing written.
    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func theURLsOptionsReachTheServer() throws {
        let configuration = try PostgresServer.freshConfiguration("options")
        let writer = ModelContext(try ModelContainer(for: Schema([Poster.self]), configurations: [configuration]))
        writer.insert(Poster(label: "written"))
        try writer.save()
        var components = try #require(URLComponents(url: configuration.url, resolvingAgainstBaseURL: false))
        components.queryItems = [URLQueryItem(name: "options", value: "-c default_transaction_read_only=on")]
        let readOnly = PostgresStoreConfiguration(name: configuration.name, url: try #require(components.url))
        let context = ModelContext(try ModelContainer(for: Schema([Poster.self]), configurations: [readOnly]))
        #expect(try context.fetch(FetchDescriptor<Poster>()).map(\.label) == ["written"])
        context.insert(Poster(label: "refused"))
        let error = #expect(throws: SwiftDataError.storeFailure) { try context.save() }
        #expect(error?.description.contains("read-only transaction") == true, "\(String(describing: error))")
        #expect(try PostgresServer.sql("SELECT count(*)::text FROM \(configuration.name).\"Poster\"") == ["1"])
    }

    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func aMissingDatabaseIsStoreUnavailable() throws {
        let server = try #require(PostgresServer.url)
        var components = try #require(URLComponents(url: server, resolvingAgainstBaseURL: false))
        components.path = "/no_such_database"
        let error = #expect(throws: SwiftDataError.storeUnavailable) {
            try ModelContainer(for: Schema([Poster.self]), configurations: [PostgresStoreConfiguration(url: try #require(components.url))])
        }
        #expect(error?.description.contains("no_such_database") == true)
    }

    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func aNamespaceOfOtherModelsIsRefusedAndKeepsItsData() throws {
        let configuration = try PostgresServer.freshConfiguration()
        let context = ModelContext(try ModelContainer(for: Schema([Poster.self]), configurations: [configuration]))
        context.insert(Poster(label: "kept"))
        try context.save()
        let tables = try PostgresServer.sql("SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = '\(configuration.name)'")
        let error = #expect(throws: SwiftDataError.schemaMismatch) {
            try ModelContainer(for: Schema([Ticket.self, Desk.self]), configurations: [configuration])
        }
        #expect(error?.description.contains("model Ticket is not in the store") == true)
        #expect(try PostgresServer.sql("SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = '\(configuration.name)'") == tables)
        let reopened = ModelContext(try ModelContainer(for: Schema([Poster.self]), configurations: [configuration]))
        #expect(try reopened.fetch(FetchDescriptor<Poster>()).map(\.label) == ["kept"])
    }

    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func aNamespaceOfAnotherProgramIsRefusedUntouched() throws {
        let configuration = try PostgresServer.freshConfiguration("other")
        try PostgresServer.sql("CREATE SCHEMA \(configuration.name)")
        try PostgresServer.sql("CREATE TABLE \(configuration.name).accounts (id int)")
        try PostgresServer.sql("INSERT INTO \(configuration.name).accounts VALUES (1)")
        let error = #expect(throws: SwiftDataError.schemaMismatch) {
            try ModelContainer(for: Schema([Poster.self]), configurations: [configuration])
        }
        #expect(error?.description.contains("accounts") == true)
        #expect(try PostgresServer.sql("SELECT count(*)::text FROM pg_tables WHERE schemaname = '\(configuration.name)'") == ["1"])
        #expect(try PostgresServer.sql("SELECT count(*)::text FROM \(configuration.name).accounts") == ["1"])
    }

    /// A namespace written before history rows carried a token gains the column when it is
    /// opened for saving, keeps its history, and saves with tokens; opened read-only, it is not
    /// changed.
    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func aNamespaceFromBeforeHistoryTokensGainsThem() throws {
        let configuration = try PostgresServer.freshConfiguration("tokens")
        let schema = Schema([Poster.self])
        let first = ModelContext(try ModelContainer(for: schema, configurations: [configuration]))
        first.insert(Poster(label: "before"))
        try first.save()
        try PostgresServer.sql("ALTER TABLE \(configuration.name).osd_history DROP COLUMN token")
        try PostgresServer.sql("DELETE FROM \(configuration.name).osd_metadata WHERE key = 'historyToken'")
        let columns = "SELECT count(*)::text FROM information_schema.columns WHERE table_schema = '\(configuration.name)' AND table_name = 'osd_history' AND column_name = 'token'"

        let reader = ModelContext(try ModelContainer(
            for: schema, configurations: [PostgresStoreConfiguration(name: configuration.name, url: configuration.url, allowsSave: false)]))
        #expect(try reader.fetch(FetchDescriptor<Poster>()).map(\.label) == ["before"])
        #expect(try PostgresServer.sql(columns) == ["0"], "a read-only configuration changes nothing")

        let context = ModelContext(try ModelContainer(for: schema, configurations: [configuration]))
        context.insert(Poster(label: "after"))
        try context.save()
        #expect(try PostgresServer.sql(columns) == ["1"])
        #expect(try PostgresServer.sql("SELECT count(token)::text FROM \(configuration.name).osd_history") == ["1"])
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 2)
        #expect(try context.fetch(FetchDescriptor<Poster>(sortBy: [SortDescriptor(\.label)])).map(\.label) == ["after", "before"])
    }

    /// The initializer Apple's documentation shows for other stores' configurations: model
    /// classes and a configuration, no schema, no array.
    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func aContainerOpensFromModelClassesAndOneConfiguration() throws {
        let configuration = try PostgresServer.freshConfiguration()
        let container = try ModelContainer(for: Poster.self, configurations: configuration)
        #expect(container.schema.entities.map(\.name) == ["Poster"])
        #expect(container.configurations.isEmpty, "a PostgreSQL configuration is no ModelConfiguration")
        let context = ModelContext(container)
        context.insert(Poster(label: "variadic"))
        try context.save()
        let reopened = ModelContext(try ModelContainer(for: Poster.self, configurations: configuration))
        #expect(try reopened.fetch(FetchDescriptor<Poster>()).map(\.label) == ["variadic"])
    }

    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func twoConfigurationsShareOneDatabaseApart() throws {
        let first = try PostgresServer.freshConfiguration()
        let second = try PostgresServer.freshConfiguration()
        for (configuration, label) in [(first, "one"), (second, "two")] {
            let context = ModelContext(try ModelContainer(for: Schema([Poster.self]), configurations: [configuration]))
            context.insert(Poster(label: label))
            try context.save()
        }
        for (configuration, label) in [(first, "one"), (second, "two")] {
            let context = ModelContext(try ModelContainer(for: Schema([Poster.self]), configurations: [configuration]))
            #expect(try context.fetch(FetchDescriptor<Poster>()).map(\.label) == [label])
        }
    }
}

/// A namespace whose tables another program removed: reads and saves name the table, and the
/// namespace is refused at the next opening, with nothing changed.
@Suite(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
struct PostgresRemovedTableTests {
    @Test func aTableRemovedIsNamedAndTheNamespaceRefused() throws {
        let configuration = try PostgresServer.freshConfiguration("removed")
        let container = try ModelContainer(for: Desk.self, Ticket.self, configurations: configuration)
        let context = ModelContext(container)
        let desk = Desk(name: "front")
        context.insert(desk)
        desk.tickets.append(Ticket(code: "A1", title: "first"))
        try context.save()
        try PostgresServer.sql("DROP TABLE \(configuration.name).\"Ticket\"")
        let read = #expect(throws: SwiftDataError.self) { try ModelContext(container).fetch(FetchDescriptor<Ticket>()) }
        #expect(read?.kind == .storeIsCorrupt)
        #expect(read.map { "\($0)" }?.contains("another program removed it") == true)
        context.insert(Ticket(code: "B2", title: "second"))
        let save = #expect(throws: SwiftDataError.self) { try context.save() }
        #expect(save?.kind == .storeIsCorrupt)
        #expect(context.hasChanges)
        let history = try PostgresServer.sql("SELECT count(*) FROM \(configuration.name).osd_history")
        for allowsSave in [true, false] {
            let reopened = PostgresStoreConfiguration(name: configuration.name, url: configuration.url, allowsSave: allowsSave)
            let open = #expect(throws: SwiftDataError.self) { try ModelContainer(for: Desk.self, Ticket.self, configurations: reopened) }
            #expect(open?.kind == .storeIsCorrupt)
            #expect(open.map { "\($0)" }?.contains("lacks the table of the model Ticket") == true, "\(String(describing: open))")
        }
        #expect(try PostgresServer.sql("SELECT count(*) FROM \(configuration.name).osd_history") == history)
        #expect(try PostgresServer.sql("SELECT name FROM \(configuration.name).\"Desk\"") == ["front"])
    }
}
