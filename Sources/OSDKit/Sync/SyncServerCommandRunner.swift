import Foundation
import Logging
import OpenSwiftDataSyncServer

/// `osd sync-server`: a sync server for the models of a schema file, with fixed tokens, and no
/// Swift code of the user's.
package struct SyncServerCommandRunner {
    package var postgresURL: String
    package var name: String
    package var schemaPath: String
    package var port: Int
    package var host: String
    package var tokensPath: String
    /// How long the records of deleted models are kept (``SyncServer/retention``).
    package var retention: Duration?

    package init(postgresURL: String, name: String, schemaPath: String, port: Int, host: String, tokensPath: String, retention: Duration? = nil) {
        self.postgresURL = postgresURL
        self.name = name
        self.schemaPath = schemaPath
        self.port = port
        self.host = host
        self.tokensPath = tokensPath
        self.retention = retention
    }

    /// Serves until the process is stopped, printing `listening on PORT` once the server accepts
    /// connections.
    package func run() async throws {
        let schema = try SchemaDocument.load(from: schemaPath).syncSchema()
        let authenticator = try TokenFileAuthenticator(contentsOf: URL(fileURLWithPath: tokensPath))
        var logger = Logger(label: "osd.sync-server")
        logger.logLevel = .warning
        var server = try SyncServer(postgresURL: postgresURL, name: name, syncSchema: schema, authenticator: authenticator, logger: logger)
        server.retention = retention
        try await server.run(host: host, port: port) { port in
            FileHandle.standardOutput.write(Data("listening on \(port)\n".utf8))
        }
    }
}
