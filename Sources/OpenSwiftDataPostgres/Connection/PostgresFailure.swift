import OpenSwiftData
import PostgresNIO

/// Turns the errors of PostgresNIO and the server into ``SwiftDataError``s that say what to do.
enum PostgresFailure {
    /// SQLSTATE classes and codes the store reports as their own kinds.
    private static let uniqueViolation = "23505"
    private static let serializationFailure = "40001"
    private static let deadlock = "40P01"
    private static let lockTimeout = "55P03"

    /// Whether an error says a transaction lost a race with another connection and was rolled
    /// back: running it again can succeed.
    static func isLostRace(_ error: SwiftDataError) -> Bool {
        guard let reason = error.reason else { return false }
        return [uniqueViolation, serializationFailure, deadlock].contains { reason.hasPrefix("PostgreSQL \($0):") }
    }

    static func swiftDataError(_ error: any Error, location: PostgresLocation?, statement: String) -> SwiftDataError {
        if let error = error as? SwiftDataError { return error }
        let place = location?.displayName ?? "the PostgreSQL server"
        guard let error = error as? PSQLError else {
            return SwiftDataError(.storeUnavailable, reason: "\(place) cannot be reached: \(error)")
        }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            let message = error.serverInfo?[.message] ?? "\(error)"
            let detail = error.serverInfo?[.detail].map { " (\($0))" } ?? ""
            let text = "PostgreSQL \(state): \(message)\(detail); statement: \(statement.prefix(300))"
            switch state {
            case uniqueViolation: return SwiftDataError(.uniquenessConflict, reason: "\(text). Nothing was saved.")
            case serializationFailure, deadlock, lockTimeout: return SwiftDataError(.storeIsBusy, reason: "\(text). Nothing was saved; try again.")
            case "28P01", "28000": return SwiftDataError(.storeAccessDenied, reason: "\(place): \(message)")
            case "3D000": return SwiftDataError(.storeUnavailable, reason: "\(place): \(message); create the database first (createdb)")
            case "42501": return SwiftDataError(.storeAccessDenied, reason: "\(place): \(message)")
            case let code where code.hasPrefix("08") || code.hasPrefix("57P"):
                return SwiftDataError(.storeUnavailable, reason: "\(place): \(message)")
            default: return SwiftDataError(.storeFailure, reason: text)
            }
        case .unsupportedAuthMechanism, .authMechanismRequiresPassword, .saslError:
            return SwiftDataError(.storeAccessDenied, reason: "\(place) refused the credentials: \(error.code)")
        case .sslUnsupported, .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest:
            return SwiftDataError(.storeUnavailable, reason: "\(place) does not speak TLS as asked (\(error.code)); set transportSecurity or sslmode to match the server")
        default:
            let cause = error.underlying.map { ": \($0)" } ?? ""
            return SwiftDataError(.storeUnavailable, reason: "\(place) cannot be reached or the connection was lost (\(error.code)\(cause)). Nothing of the statement in flight was kept.")
        }
    }
}
