import Foundation

/// A place for tokens, passwords and keys: the Keychain on Apple platforms
/// (`KeychainSecretStore`), an encrypted file elsewhere (``EncryptedFileSecretStore``).
///
/// Every operation throws a ``SecretsError`` with a specific code; none returns a default.
public protocol SecretStore: Sendable {
    /// Stores `secret` for `key`, replacing the secret stored for it, if any.
    func set(_ secret: Data, for key: String, options: SecretOptions) throws

    /// Stores `secret` for `key`.
    ///
    /// - Throws: ``SecretsError`` with code ``SecretsError/Code/duplicate`` when a secret is
    ///   already stored for `key`.
    func add(_ secret: Data, for key: String, options: SecretOptions) throws

    /// Returns the secret stored for `key`.
    ///
    /// - Throws: ``SecretsError`` with code ``SecretsError/Code/notFound`` when there is none.
    func secret(for key: String) throws -> Data

    /// Removes the secret stored for `key`.
    ///
    /// - Throws: ``SecretsError`` with code ``SecretsError/Code/notFound`` when there is none.
    func removeSecret(for key: String) throws

    /// The keys of every stored secret, sorted.
    func keys() throws -> [String]
}

extension SecretStore {
    /// Stores `secret` for `key` with the default options, replacing any secret stored for it.
    public func set(_ secret: Data, for key: String) throws {
        try set(secret, for: key, options: .default)
    }

    /// Stores the UTF-8 text `secret` for `key`, replacing any secret stored for it.
    public func set(_ secret: String, for key: String, options: SecretOptions = .default) throws {
        try set(Data(secret.utf8), for: key, options: options)
    }

    /// Returns the secret stored for `key` as UTF-8 text.
    ///
    /// - Throws: ``SecretsError/Code/notFound`` when there is none, ``SecretsError/Code/failure``
    ///   when it isn't UTF-8 text.
    public func string(for key: String) throws -> String {
        let data = try secret(for: key)
        guard let text = String(data: data, encoding: .utf8) else {
            throw SecretsError(.failure, key: key, reason: "the secret is not UTF-8 text")
        }
        return text
    }

    /// Returns whether a secret is stored for `key`.
    public func contains(_ key: String) throws -> Bool {
        do {
            _ = try secret(for: key)
            return true
        } catch let error as SecretsError where error.code == .notFound {
            return false
        }
    }
}
