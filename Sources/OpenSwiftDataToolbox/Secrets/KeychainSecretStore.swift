#if canImport(Security)
import Foundation
import Security

/// Secrets kept in the Keychain as generic passwords of one service: the secret store on Apple
/// platforms.
///
/// Each key is an account of the service. ``SecretOptions`` map to `kSecAttrAccessible` and
/// `kSecAttrAccessGroup`; the Keychain's status codes map to ``SecretsError`` codes
/// (`errSecItemNotFound` to ``SecretsError/Code/notFound``, `errSecDuplicateItem` to
/// ``SecretsError/Code/duplicate``, `errSecInteractionNotAllowed` to
/// ``SecretsError/Code/interactionNotAllowed``, `errSecMissingEntitlement` and `errSecAuthFailed`
/// to ``SecretsError/Code/accessDenied``), with the status in the reason.
public struct KeychainSecretStore: SecretStore {
    /// The Keychain service the secrets are stored under, the bundle identifier by default.
    public let service: String
    /// The access group searched when reading, listing and removing; `nil` for every group the
    /// app may read.
    public let accessGroup: String?

    /// Creates a store over the secrets of `service`.
    public init(service: String = Bundle.main.bundleIdentifier ?? "OpenSwiftData", accessGroup: String? = nil) {
        self.service = service
        self.accessGroup = accessGroup
    }

    /// Stores `secret` for `key`, replacing the secret stored for it, if any.
    public func set(_ secret: Data, for key: String, options: SecretOptions) throws {
        let attributes: [String: Any] = [
            kSecValueData as String: secret,
            kSecAttrAccessible as String: Self.accessible(options.accessibility),
        ]
        let status = SecItemUpdate(query(for: key, group: options.accessGroup) as CFDictionary, attributes as CFDictionary)
        if status == errSecItemNotFound {
            try add(secret, for: key, options: options)
        } else {
            try check(status, key: key)
        }
    }

    /// Stores `secret` for `key`, throwing ``SecretsError/Code/duplicate`` when one is stored.
    public func add(_ secret: Data, for key: String, options: SecretOptions) throws {
        var item = query(for: key, group: options.accessGroup)
        item[kSecValueData as String] = secret
        item[kSecAttrAccessible as String] = Self.accessible(options.accessibility)
        try check(SecItemAdd(item as CFDictionary, nil), key: key)
    }

    /// Returns the secret stored for `key`, throwing ``SecretsError/Code/notFound`` when none is.
    public func secret(for key: String) throws -> Data {
        var search = query(for: key, group: accessGroup)
        search[kSecReturnData as String] = true
        search[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        try check(SecItemCopyMatching(search as CFDictionary, &result), key: key)
        guard let data = result as? Data else {
            throw SecretsError(.failure, key: key, reason: "the Keychain returned no data")
        }
        return data
    }

    /// Removes the secret stored for `key`, throwing ``SecretsError/Code/notFound`` when none is.
    public func removeSecret(for key: String) throws {
        try check(SecItemDelete(query(for: key, group: accessGroup) as CFDictionary), key: key)
    }

    /// The keys of every stored secret of the service, sorted.
    public func keys() throws -> [String] {
        var search: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecReturnAttributes as String: true,
            kSecMatchLimit as String: kSecMatchLimitAll,
        ]
        if let accessGroup { search[kSecAttrAccessGroup as String] = accessGroup }
        var result: CFTypeRef?
        let status = SecItemCopyMatching(search as CFDictionary, &result)
        if status == errSecItemNotFound { return [] }
        try check(status, key: nil)
        let items = result as? [[String: Any]] ?? []
        return items.compactMap { $0[kSecAttrAccount as String] as? String }.sorted()
    }

    private func query(for key: String, group: String?) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: key,
        ]
        if let group { query[kSecAttrAccessGroup as String] = group }
        return query
    }

    private func check(_ status: OSStatus, key: String?) throws {
        guard status != errSecSuccess else { return }
        let message = (SecCopyErrorMessageString(status, nil) as String?) ?? "OSStatus \(status)"
        let reason = "\(message) (OSStatus \(status), service \(service))"
        switch status {
        case errSecItemNotFound: throw SecretsError(.notFound, key: key, reason: reason)
        case errSecDuplicateItem: throw SecretsError(.duplicate, key: key, reason: reason)
        case errSecInteractionNotAllowed: throw SecretsError(.interactionNotAllowed, key: key, reason: reason)
        case errSecMissingEntitlement, errSecAuthFailed: throw SecretsError(.accessDenied, key: key, reason: reason)
        default: throw SecretsError(.failure, key: key, reason: reason)
        }
    }

    private static func accessible(_ accessibility: SecretAccessibility) -> CFString {
        switch accessibility {
        case .afterFirstUnlock: return kSecAttrAccessibleAfterFirstUnlock
        case .afterFirstUnlockThisDeviceOnly: return kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        case .whenUnlocked: return kSecAttrAccessibleWhenUnlocked
        case .whenUnlockedThisDeviceOnly: return kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        case .whenPasscodeSetThisDeviceOnly: return kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly
        }
    }
}
#endif
