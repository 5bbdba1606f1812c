import Foundation

/// The platform's secret store for the app.
public enum Secrets {
    /// The store an app uses by default: the Keychain, under `service`, on Apple platforms; on
    /// Linux and servers the encrypted file of ``EncryptedFileSecretStore/forApp(named:directories:)``
    /// named for `service` (`secrets` when not given).
    public static func forApp(
        service: String? = nil, directories: AppDirectories = .forApp()
    ) throws -> any SecretStore {
        #if canImport(Security)
        return KeychainSecretStore(service: service ?? Bundle.main.bundleIdentifier ?? "OpenSwiftData")
        #else
        return try EncryptedFileSecretStore.forApp(named: service ?? "secrets", directories: directories)
        #endif
    }
}
