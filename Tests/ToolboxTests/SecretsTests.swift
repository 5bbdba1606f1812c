import Crypto
import Foundation
import OpenSwiftDataToolbox
import Testing

/// The secret stores under test: the encrypted file everywhere, and the Keychain where it exists.
enum SecretStoreKind: String, CaseIterable, CustomTestStringConvertible {
    case encryptedFile
    #if canImport(Security)
    case keychain
    #endif

    var testDescription: String { rawValue }

    /// A new, empty store, and a second handle on it (a relaunch).
    func make(in directory: TemporaryDirectory) throws -> (any SecretStore, () throws -> any SecretStore) {
        switch self {
        case .encryptedFile:
            let open = { try EncryptedFileSecretStore(url: directory.file("secrets"), keyFile: directory.file("secrets.key")) }
            return (try open(), open)
        #if canImport(Security)
        case .keychain:
            let service = "ToolboxTests-\(UUID().uuidString)"
            return (KeychainSecretStore(service: service), { KeychainSecretStore(service: service) })
        #endif
        }
    }
}

@Suite struct SecretsTests {
    @Test(arguments: SecretStoreKind.allCases)
    func secretsAreSetReadListedAndRemovedWithSpecificErrors(kind: SecretStoreKind) throws {
        let directory = try TemporaryDirectory()
        let (store, reopen) = try kind.make(in: directory)
        #expect(try store.keys() == [])
        #expect(throws: SecretsError(.notFound, key: "token", reason: "")) { try store.secret(for: "token") }
        #expect(throws: SecretsError(.notFound, key: "token", reason: "")) { try store.removeSecret(for: "token") }
        try store.set("s3cr3t-token", for: "token")
        try store.add(Data([0, 1, 2]), for: "key", options: SecretOptions(accessibility: .whenUnlockedThisDeviceOnly))
        #expect(throws: SecretsError(.duplicate, key: "key", reason: "")) {
            try store.add(Data([9]), for: "key", options: .default)
        }
        try store.set("rotated", for: "token")
        #expect(try store.string(for: "token") == "rotated")
        #expect(try store.secret(for: "key") == Data([0, 1, 2]))
        #expect(try store.keys() == ["key", "token"])

        let reopened = try reopen()
        #expect(try reopened.string(for: "token") == "rotated")
        try reopened.removeSecret(for: "token")
        #expect(try store.contains("token") == false)
        #expect(try store.keys() == ["key"])
        try store.removeSecret(for: "key")
    }

    @Test func theEncryptedFileRecordsEachSecretsOptions() throws {
        let directory = try TemporaryDirectory()
        let store = try EncryptedFileSecretStore(url: directory.file("secrets"), keyFile: directory.file("secrets.key"))
        try store.set(Data([1]), for: "key", options: SecretOptions(accessibility: .whenUnlockedThisDeviceOnly, accessGroup: "team.shared"))
        #expect(try store.options(for: "key") == SecretOptions(accessibility: .whenUnlockedThisDeviceOnly, accessGroup: "team.shared"))
        #expect(throws: SecretsError(.notFound, key: "other", reason: "")) { try store.options(for: "other") }
    }

    @Test func theFileHoldsNoPlainTextAndOnlyItsOwnerMayReadIt() throws {
        let directory = try TemporaryDirectory()
        let store = try EncryptedFileSecretStore(url: directory.file("secrets"), keyFile: directory.file("secrets.key"))
        let secret = "correct horse battery staple"
        try store.set(secret, for: "database-password")
        let bytes = try Data(contentsOf: directory.file("secrets"))
        for text in [secret, "database-password", "horse", "afterFirstUnlock"] {
            #expect(bytes.range(of: Data(text.utf8)) == nil, "the file holds '\(text)' in plain text")
            #expect(bytes.range(of: Data(Data(text.utf8).base64EncodedString().utf8)) == nil)
        }
        for file in ["secrets", "secrets.key"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.file(file).path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "\(file)")
        }
    }

    @Test func aWrongKeyOrAnAlteredFileIsRefusedAndNothingIsOverwritten() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("secrets")
        let store = EncryptedFileSecretStore(url: url, key: SymmetricKey(size: .bits256))
        try store.set("value", for: "name")
        let before = try Data(contentsOf: url)

        let wrongKey = EncryptedFileSecretStore(url: url, key: SymmetricKey(size: .bits256))
        #expect(throws: SecretsError(.accessDenied, key: nil, reason: "")) { try wrongKey.secret(for: "name") }
        #expect(throws: SecretsError(.accessDenied, key: nil, reason: "")) { try wrongKey.set("other", for: "name") }
        #expect(try Data(contentsOf: url) == before)

        var altered = before
        altered[altered.count - 20] ^= 0x01
        try altered.write(to: url)
        #expect(throws: SecretsError(.accessDenied, key: nil, reason: "")) { try store.secret(for: "name") }
        try Data("not a secrets file".utf8).write(to: url)
        #expect(throws: SecretsError(.damagedStore, key: nil, reason: "")) { try store.keys() }
        #expect(throws: SecretsError(.damagedStore, key: nil, reason: "")) {
            try Data([1, 2, 3]).write(to: directory.file("bad.key"))
            _ = try EncryptedFileSecretStore(url: url, keyFile: directory.file("bad.key"))
        }
    }

    @Test func writersOnOneFileKeepEverySecretAndShareOneNewKey() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("secrets")
        let keyFile = directory.file("secrets.key")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    let store = try EncryptedFileSecretStore(url: url, keyFile: keyFile)
                    for index in 0..<10 {
                        try store.add(Data("\(writer)-\(index)".utf8), for: "w\(writer)-\(index)", options: .default)
                    }
                }
            }
            try await group.waitForAll()
        }
        let store = try EncryptedFileSecretStore(url: url, keyFile: keyFile)
        #expect(try store.keys().count == 40)
        #expect(try store.string(for: "w3-9") == "3-9")
    }

    /// A write of the secrets file removes what killed writes of it left, and nothing of another
    /// file's: the key file `secrets.key`, which another process may be creating beside it.
    @Test func aWriteRemovesOnlyItsOwnFilesAbandonedWrites() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("secrets")
        let abandoned = directory.file(".osd-write-secrets.\(UUID().uuidString)")
        let keyBeingWritten = directory.file(".osd-write-secrets.key.\(UUID().uuidString)")
        try Data("partial".utf8).write(to: abandoned)
        try Data("key".utf8).write(to: keyBeingWritten)
        let store = EncryptedFileSecretStore(url: url, key: SymmetricKey(size: .bits256))
        try store.set("value", for: "name")
        #expect(!FileManager.default.fileExists(atPath: abandoned.path))
        #expect(FileManager.default.fileExists(atPath: keyBeingWritten.path))
        #expect(try store.string(for: "name") == "value")
    }

    @Test func thePlatformStoreIsTheEncryptedFileOnLinux() throws {
        let directory = try TemporaryDirectory()
        let directories = AppDirectories.rooted(at: directory.url)
        let store = try Secrets.forApp(service: "api", directories: directories)
        try store.set("v", for: "k")
        #if !canImport(Security)
        #expect(FileManager.default.fileExists(atPath: directories.applicationSupport.appendingPathComponent("api").path))
        #expect(FileManager.default.fileExists(atPath: directories.preferences.appendingPathComponent("api.key").path))
        #endif
        #expect(try store.string(for: "k") == "v")
    }
}
