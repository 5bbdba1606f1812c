import ArgumentParser
import Foundation
import OSDKit

/// `osd sync-server`: runs a sync server for a schema's models over PostgreSQL.
struct SyncServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync-server",
        abstract: "Run a sync server for the models of a schema.json, over PostgreSQL.",
        discussion: "Prints `listening on PORT` once it accepts connections. See docs/Sync.md.")

    @Option(help: "The PostgreSQL server's URL (postgres://user@host/database).") var postgres: String
    @Option(help: "The name of the server's tables' namespace (<name>_sync).") var name = "default"
    @Option(help: "The schema.json of the models (what `osd schema` prints).") var schema: String
    @Option(help: "The port to listen on.") var port: Int
    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "A file of TOKEN USER pairs, one per line.") var tokens: String
    @Option(help: "Keep the records of deleted models this many seconds (forever without it); a client away longer downloads its rows again.")
    var retention: Int?

    func validate() throws {
        if let retention, retention <= 0 { throw ValidationError("--retention is a number of seconds above 0.") }
    }

    func run() async throws {
        do {
            try await SyncServerCommandRunner(
                postgresURL: postgres, name: name, schemaPath: schema, port: port, host: host, tokensPath: tokens,
                retention: retention.map { .seconds($0) }).run()
        } catch {
            let message = (error as? ToolError)?.message ?? "\(error)"
            FileHandle.standardError.write(Data("osd: error: \(message)\n".utf8))
            throw ExitCode.failure
        }
    }
}
