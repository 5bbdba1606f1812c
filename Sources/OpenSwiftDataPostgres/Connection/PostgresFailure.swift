import Foundation
import OpenSwiftData
import PostgresNIO

/// Turns the errors of PostgresNIO and the server into ``SwiftDataError``s that say what to do.
enum PostgresFailure {
    /// SQLSTATE classes and codes the store reports as their own kinds.
    private static let uniqueViolation = "23505"
    private static let serializationFailure = "40001"
    private static let deadlock = "40P01"
    private static let lockTimeout = "55P03"
    private static let programLimitExceeded = "54000"
    private static let numericValueOutOfRange = "22003"
    private static let invalidColumnReference = "42P10"

    /// Whether an error says a transaction lost a race with another connection and was rolled
    /// back: running it again can succeed.
    static func isLostRace(_ error: SwiftDataError) -> Bool {
        guard let reason = error.reason else { return false }
        return [uniqueViolation, serializationFailure, deadlock].contains { reason.hasPrefix("PostgreSQL \($0):") }
    }

    /// Whether the server refused a row because an index entry of it is too large
    /// (`program_limit_exceeded`: "index row size … exceeds …", "index row requires … bytes").
    static func isIndexEntryTooLarge(_ error: SwiftDataError) -> Bool {
        guard let reason = error.reason, reason.hasPrefix("PostgreSQL \(programLimitExceeded):") else { return false }
        return reason.contains("index row")
    }

    /// Whether the server refused to execute a prepared statement because a table it reads
    /// changed the type of a column it returns (`feature_not_supported`, "cached plan must not
    /// change result type"): it refuses every execution until the statement is prepared again.
    static func isStalePlan(_ error: SwiftDataError) -> Bool {
        error.reason?.hasPrefix("PostgreSQL 0A000:") == true && error.reason?.contains("cached plan") == true
    }

    /// Whether the server refused an `INSERT … ON CONFLICT` because the table has no unique
    /// index that matches its conflict target (`invalid_column_reference`).
    static func isMissingConflictIndex(_ error: SwiftDataError) -> Bool {
        error == .storeIsCorrupt && error.reason?.contains("PostgreSQL \(invalidColumnReference):") == true
    }

    /// Whether the server refused a value out of its type's range (`numeric_value_out_of_range`):
    /// among others, two finite `double precision` values whose sum is no finite number.
    static func isOutOfRange(_ error: SwiftDataError) -> Bool {
        error.reason?.hasPrefix("PostgreSQL \(numericValueOutOfRange):") == true
    }

    /// Whether connecting failed because the server is away for the moment (restarting, failing
    /// over, starting up or shutting down), so that trying again shortly can succeed: nothing
    /// listens at its address or socket (`ECONNREFUSED`, `ENOENT`), the attempt was reset or closed, or the
    /// server answered `cannot_connect_now` (57P03) or ended the session as it shut down (57P01,
    /// 57P02). Not for what waiting does not mend: refused credentials, a database that does not
    /// exist, TLS that does not match, a name that does not resolve, a timeout already waited.
    static func meansServerAway(_ error: any Error) -> Bool {
        switch error {
        case let error as IOError:
            return [ECONNREFUSED, ENOENT, ECONNRESET, ECONNABORTED, EPIPE].contains(error.errnoCode)
        case let error as ChannelError:
            // The server (or what stands in front of it) closed the connection as it opened.
            switch error {
            case .alreadyClosed, .ioOnClosedChannel, .eof, .outputClosed: return true
            default: return false
            }
        case let error as NIOConnectionError:
            return !error.connectionErrors.isEmpty && error.connectionErrors.allSatisfy { meansServerAway($0.error) }
        case let error as PSQLError:
            switch error.code {
            case .server: return ["57P01", "57P02", "57P03"].contains(error.serverInfo?[.sqlState] ?? "")
            case .serverClosedConnection, .uncleanShutdown: return true
            case .connectionError: return error.underlying.map(meansServerAway) ?? false
            default: return false
            }
        case let error as PostgresError:
            if case .connectionClosed = error { return true }
            return false
        default:
            return false
        }
    }

    static func swiftDataError(_ error: any Error, location: PostgresLocation?, statement: String) -> SwiftDataError {
        if let error = error as? SwiftDataError { return error }
        let place = location?.displayName ?? "the PostgreSQL server"
        if let error = error as? PostgresError {
            // What statements prepared with postgres-nio's `PreparedQuery` fail with.
            switch error {
            case .server(let reply):
                return serverError(
                    state: reply.fields[.sqlState] ?? "", message: reply.fields[.message] ?? "\(reply)",
                    detail: reply.fields[.detail], place: place, statement: statement)
            case .connectionClosed:
                return SwiftDataError(.storeUnavailable, reason: "\(place): the connection was closed. Work the connection had not committed was discarded.")
            case .protocol(let message):
                return SwiftDataError(.storeUnavailable, reason: "\(place) broke the protocol (\(message)); the connection is dropped. Work the connection had not committed was discarded.")
            }
        }
        guard let error = error as? PSQLError else {
            return SwiftDataError(.storeUnavailable, reason: "\(place) cannot be reached: \(error)")
        }
        switch error.code {
        case .server:
            return serverError(
                state: error.serverInfo?[.sqlState] ?? "", message: error.serverInfo?[.message] ?? "\(error)",
                detail: error.serverInfo?[.detail], place: place, statement: statement)
        case .tooManyParameters:
            // Refused before it was sent: the statement's fault, not the connection's.
            return SwiftDataError(.storeFailure, reason: "\(place): the statement binds more than \(PostgresSQL.maximumParameters) values, more than PostgreSQL takes; nothing was sent. Statement: \(statement.prefix(300))")
        case .authMechanismRequiresPassword:
            return SwiftDataError(.storeAccessDenied, reason: "\(place): the server asks for a password and the URL gives none (postgres://user:password@host/database)")
        case .unsupportedAuthMechanism, .saslError:
            return SwiftDataError(.storeAccessDenied, reason: "\(place) refused the credentials: \(error.code)")
        case .sslUnsupported, .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest:
            return SwiftDataError(.storeUnavailable, reason: "\(place) does not speak TLS as asked (\(error.code)); set transportSecurity or sslmode to match the server")
        case _ where error.underlying.map(rejectsCertificate) == true:
            return SwiftDataError(.storeUnavailable, reason: "\(place) was not trusted: its TLS certificate failed the check (\(error.underlying.map { "\($0)" } ?? "")); name the authority that signed it with sslrootcert=FILE in the URL, check the chain alone with sslmode=verify-ca, or encrypt without checking the certificate with sslmode=require")
        default:
            let cause = error.underlying.map { ": \($0)" } ?? ""
            return SwiftDataError(.storeUnavailable, reason: "\(place) cannot be reached or the connection was lost (\(error.code)\(cause)). Work the connection had not committed was discarded.")
        }
    }

    /// Whether a connection failed because the server's certificate did not pass the check TLS
    /// was asked to make (its chain or its host name). Only the message depends on it.
    private static func rejectsCertificate(_ error: any Error) -> Bool {
        let text = String(describing: error)
        return text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("failedToValidateHostname")
    }

    /// The error for a statement the server answered with an error: by its SQLSTATE.
    private static func serverError(state: String, message: String, detail: String?, place: String, statement: String) -> SwiftDataError {
        let detail = detail.map { " (\($0))" } ?? ""
        let text = "PostgreSQL \(state): \(message)\(detail); statement: \(statement.prefix(300))"
        switch state {
        case uniqueViolation: return SwiftDataError(.uniquenessConflict, reason: "\(text). Nothing was saved.")
        case serializationFailure, deadlock, lockTimeout: return SwiftDataError(.storeIsBusy, reason: "\(text). Nothing was saved; try again.")
        case "28P01", "28000": return SwiftDataError(.storeAccessDenied, reason: "\(place): \(message)")
        case "3D000": return SwiftDataError(.storeUnavailable, reason: "\(place): \(message); create the database first (createdb)")
        case "42501": return SwiftDataError(.storeAccessDenied, reason: "\(place): \(message)")
        case invalidColumnReference where message.contains("ON CONFLICT"):
            // The store names in a conflict only the unique index it found when it opened.
            return SwiftDataError(.storeIsCorrupt, reason: "\(place) lacks a unique index of the store (\(message)): another program removed it while the store was open. Nothing was saved; open the store again, and `osd verify` lists what is missing. \(text)")
        case "42P01":
            // undefined_table: the store's statements name only the tables it records.
            return SwiftDataError(.storeIsCorrupt, reason: "\(place) lacks a table of the store (\(message)): another program removed it while the store was open. \(text)")
        case "53300":
            // too_many_connections: the server refused the connection, as when it is down.
            return SwiftDataError(.storeUnavailable, reason: "\(place): \(message); close the containers no longer used, lower maximumReadConnections, or raise the server's limit")
        case let code where code.hasPrefix("08") || code.hasPrefix("57P"):
            return SwiftDataError(.storeUnavailable, reason: "\(place): \(message)")
        default: return SwiftDataError(.storeFailure, reason: text)
        }
    }
}
