import Foundation

/// When a stored secret can be read, in the Keychain's terms.
public enum SecretAccessibility: String, Sendable, Codable, CaseIterable {
    /// Readable after the first unlock since the device started, until it restarts; included in
    /// encrypted backups. The default: what background work needs.
    case afterFirstUnlock
    /// As ``afterFirstUnlock``, and never leaves this device.
    case afterFirstUnlockThisDeviceOnly
    /// Readable only while the device is unlocked.
    case whenUnlocked
    /// As ``whenUnlocked``, and never leaves this device.
    case whenUnlockedThisDeviceOnly
    /// Readable only while the device is unlocked and has a passcode; never leaves this device.
    case whenPasscodeSetThisDeviceOnly
}

/// How a secret is stored.
///
/// On Apple platforms the options map to the Keychain's attributes. In
/// ``EncryptedFileSecretStore`` (Linux and servers), where no device lock exists, the
/// accessibility is recorded with the secret and reported back; the access group names nothing.
public struct SecretOptions: Sendable, Equatable {
    /// When the secret can be read.
    public var accessibility: SecretAccessibility
    /// The Keychain access group shared by the apps of one team, or `nil` for the app's own.
    public var accessGroup: String?

    /// Creates options.
    public init(accessibility: SecretAccessibility = .afterFirstUnlock, accessGroup: String? = nil) {
        self.accessibility = accessibility
        self.accessGroup = accessGroup
    }

    /// Readable after the first unlock, in the app's own group.
    public static let `default` = SecretOptions()
}
