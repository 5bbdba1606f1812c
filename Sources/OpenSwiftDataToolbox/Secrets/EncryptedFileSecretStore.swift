import Crypto
import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Secrets kept in one file encrypted with AES-256-GCM: the secret store on Linux and servers.
///
/// The file holds no plain text, key names included: its bytes are a format marker followed by one
/// sealed box, which also authenticates them, so a file altered by anything but this type fails to
/// open rather than giving altered secrets. The encryption key is given by the app (from a key
/// management service or an environment variable) or kept in a key file of its own, readable only
/// by the file's owner (`0600`), which belongs outside the directories that are backed up or
/// shared with the secrets file. Both files are written atomically under a lock shared by
/// processes, so concurrent writers never lose each other's secrets.
public final class EncryptedFileSecretStore: SecretStore {
    /// The encrypted secrets file.
    public let url: URL
    private let key: SymmetricKey
    private let lock: FileLock
    private static let marker = Data("OSD-SECRETS-1\n".utf8)

    private struct Contents: Codable {
        var entries: [String: Entry] = [:]
    }

    private struct Entry: Codable {
        var secret: Data
        var accessibility: SecretAccessibility
        var accessGroup: String?
    }

    /// Creates a store over the file at `url`, encrypted with `key` (256 bits).
    public init(url: URL, key: SymmetricKey) {
        self.url = url
        self.key = key
        lock = FileLock(guarding: url)
    }

    /// Creates a store over the file at `url`, encrypted with the key kept in `keyFile`, which is
    /// made with a new random key when it doesn't exist.
    ///
    /// - Throws: ``SecretsError`` with code ``SecretsError/Code/damagedStore`` when the key file
    ///   doesn't hold a 256-bit key, or ``SecretsError/Code/accessDenied`` when it can't be read.
    public convenience init(url: URL, keyFile: URL) throws {
        self.init(url: url, key: try Self.loadOrCreateKey(at: keyFile))
    }

    /// The current user's store named `name` for the app: the file `NAME` in the app's application
    /// support directory, with its key in `NAME.key` in the app's preferences directory (see
    /// ``AppDirectories``), so that the two are backed up and copied separately.
    public static func forApp(
        named name: String = "secrets", directories: AppDirectories = .forApp()
    ) throws -> EncryptedFileSecretStore {
        try EncryptedFileSecretStore(
            url: directories.applicationSupport.appendingPathComponent(name),
            keyFile: directories.preferences.appendingPathComponent(name + ".key")
        )
    }

    // MARK: SecretStore

    /// Stores `secret` for `key`, replacing the secret stored for it, if any.
    public func set(_ secret: Data, for key: String, options: SecretOptions) throws {
        try modify { contents in
            contents.entries[key] = Entry(secret: secret, accessibility: options.accessibility, accessGroup: options.accessGroup)
        }
    }

    /// Stores `secret` for `key`, throwing ``SecretsError/Code/duplicate`` when one is stored.
    public func add(_ secret: Data, for key: String, options: SecretOptions) throws {
        try modify { contents in
            guard contents.entries[key] == nil else {
                throw SecretsError(.duplicate, key: key, reason: "a secret is already stored for this key in \(url.path)")
            }
            contents.entries[key] = Entry(secret: secret, accessibility: options.accessibility, accessGroup: options.accessGroup)
        }
    }

    /// Returns the secret stored for `key`, throwing ``SecretsError/Code/notFound`` when none is.
    public func secret(for key: String) throws -> Data {
        guard let entry = try read().entries[key] else {
            throw SecretsError(.notFound, key: key, reason: "no secret is stored for this key in \(url.path)")
        }
        return entry.secret
    }

    /// Removes the secret stored for `key`, throwing ``SecretsError/Code/notFound`` when none is.
    public func removeSecret(for key: String) throws {
        try modify { contents in
            guard contents.entries.removeValue(forKey: key) != nil else {
                throw SecretsError(.notFound, key: key, reason: "no secret is stored for this key in \(url.path)")
            }
        }
    }

    /// The keys of every stored secret, sorted.
    public func keys() throws -> [String] {
        try read().entries.keys.sorted()
    }

    /// Returns the options `key`'s secret was stored with.
    public func options(for key: String) throws -> SecretOptions {
        guard let entry = try read().entries[key] else {
            throw SecretsError(.notFound, key: key, reason: "no secret is stored for this key in \(url.path)")
        }
        return SecretOptions(accessibility: entry.accessibility, accessGroup: entry.accessGroup)
    }

    // MARK: The file

    private func read() throws -> Contents {
        let data: Data?
        do {
            data = try AtomicFile.readIfPresent(from: url)
        } catch let error as FileAccessError {
            throw Self.secretsError(error)
        }
        guard let data else { return Contents() }
        return try unseal(data)
    }

    private func modify(_ change: (inout Contents) throws -> Void) throws {
        do {
            try lock.withLock {
                var contents = try read()
                try change(&contents)
                try AtomicFile.createDirectory(at: url.deletingLastPathComponent(), permissions: 0o700)
                try AtomicFile.removeAbandonedWrites(beside: url)
                try AtomicFile.write(try seal(contents), to: url, permissions: 0o600)
            }
        } catch let error as FileAccessError {
            throw Self.secretsError(error)
        }
    }

    private func unseal(_ data: Data) throws -> Contents {
        guard data.starts(with: Self.marker) else {
            throw SecretsError(.damagedStore, key: nil, reason: "\(url.path) is not a secrets file")
        }
        let plain: Data
        do {
            let box = try AES.GCM.SealedBox(combined: data.dropFirst(Self.marker.count))
            plain = try AES.GCM.open(box, using: key, authenticating: Self.marker)
        } catch {
            throw SecretsError(
                .accessDenied, key: nil,
                reason: "\(url.path) doesn't open with this key, or was altered since it was written (\(error))"
            )
        }
        do {
            return try JSONDecoder().decode(Contents.self, from: plain)
        } catch {
            throw SecretsError(.damagedStore, key: nil, reason: "\(url.path) holds no secrets list: \(error)")
        }
    }

    private func seal(_ contents: Contents) throws -> Data {
        do {
            let plain = try JSONEncoder().encode(contents)
            guard let combined = try AES.GCM.seal(plain, using: key, authenticating: Self.marker).combined else {
                throw SecretsError(.failure, key: nil, reason: "AES-GCM gave no combined box")
            }
            return Self.marker + combined
        } catch let error as SecretsError {
            throw error
        } catch {
            throw SecretsError(.failure, key: nil, reason: "encrypting \(url.path): \(error)")
        }
    }

    private static func secretsError(_ error: FileAccessError) -> SecretsError {
        SecretsError(error.code == .permissionDenied ? .accessDenied : .failure, key: nil, reason: error.description)
    }

    /// Reads the key in `keyFile`, or makes one: written to a temporary file, then linked into
    /// place, so that a process that loses the race to create it reads the winner's key.
    private static func loadOrCreateKey(at keyFile: URL) throws -> SymmetricKey {
        do {
            if let data = try AtomicFile.readIfPresent(from: keyFile) {
                guard data.count == 32 else {
                    throw SecretsError(.damagedStore, key: nil, reason: "\(keyFile.path) does not hold a 256-bit key")
                }
                return SymmetricKey(data: data)
            }
            try AtomicFile.createDirectory(at: keyFile.deletingLastPathComponent(), permissions: 0o700)
            let key = SymmetricKey(size: .bits256)
            let temporary = keyFile.deletingLastPathComponent()
                .appendingPathComponent(AtomicFile.temporaryPrefix + keyFile.lastPathComponent + "." + UUID().uuidString)
            try AtomicFile.write(key.withUnsafeBytes { Data($0) }, to: temporary, permissions: 0o600)
            defer { unlink(temporary.path) }
            guard link(temporary.path, keyFile.path) == 0 else {
                guard errno == EEXIST else { throw FileAccessError.system("link", path: keyFile.path) }
                return try loadOrCreateKey(at: keyFile)
            }
            return key
        } catch let error as FileAccessError {
            throw secretsError(error)
        }
    }
}
