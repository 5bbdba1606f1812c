import Foundation
@testable import OpenSwiftDataPostgres
import OpenSwiftData
import PostgresNIO
import Testing

/// A statement binding more values than PostgreSQL takes is refused before it is sent, as the
/// statement's fault: the connection stays, and the next statement on it runs.
@Suite struct PostgresParameterLimitTests {
    @Test(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
    func tooManyValuesIsTheStatementsFaultNotALostConnection() throws {
        let configuration = try PostgresServer.freshConfiguration("params")
        let session = try PostgresSession(try PostgresLocation(configuration))
        var bindings = PostgresBindings()
        for value in 0..<70_000 { bindings.append(Int64(value)) }
        let list = (1...70_000).map { "$\($0)::int8" }.joined(separator: ", ")
        let error = #expect(throws: SwiftDataError.storeFailure) { try session.query("SELECT 1 WHERE 1 IN (\(list))", bindings) }
        #expect(error?.reason?.contains("binds more than 65535 values") == true, "\(String(describing: error))")
        #expect(try session.query("SELECT 41 + 1").count == 1, "the connection still runs statements")
    }
}
