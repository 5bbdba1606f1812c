import Foundation

/// Tells the sync server which user a bearer token names.
///
/// The server refuses a request whose token names no user with `401 Unauthorized`. Plug in JWT
/// verification or a session store of your own; ``TokenFileAuthenticator`` reads fixed tokens.
public protocol SyncAuthenticator: Sendable {
    /// The user the token names, or `nil` for a token that names none (wrong, expired, revoked).
    func user(forToken token: String) async throws -> String?
}

/// Fixed tokens, for development and the `osd sync-server` command: one `TOKEN USER` pair per
/// line; blank lines and lines starting with `#` are skipped.
public struct TokenFileAuthenticator: SyncAuthenticator {
    /// The users, by token.
    public let users: [String: String]

    /// Tokens from pairs.
    public init(users: [String: String]) {
        self.users = users
    }

    /// Tokens from a file's text.
    ///
    /// - Throws: ``SyncServerError`` naming the line that is not a `TOKEN USER` pair.
    public init(contentsOf url: URL) throws {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw SyncServerError("The tokens file \(url.path) cannot be read: \(error.localizedDescription)")
        }
        var users: [String: String] = [:]
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            let parts = trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard parts.count == 2 else {
                throw SyncServerError("Line \(number + 1) of the tokens file \(url.path) is not a TOKEN USER pair")
            }
            users[String(parts[0])] = String(parts[1])
        }
        self.users = users
    }

    /// The user the file pairs with the token, if any.
    public func user(forToken token: String) async throws -> String? { users[token] }
}
