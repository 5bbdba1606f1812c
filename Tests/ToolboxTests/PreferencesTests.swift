import Foundation
import Observation
import OpenSwiftDataToolbox
import Testing

struct Profile: Codable, Sendable, Equatable {
    var name: String
    var tags: [String]
}

extension Preferences.Key where Value == Bool {
    static let notificationsEnabled = Preferences.Key("notificationsEnabled", default: true)
}

extension Preferences.Key where Value == Profile {
    static let profile = Preferences.Key("profile", default: Profile(name: "", tags: []))
}

/// The storages under test: the file of our own, and a `UserDefaults` suite (which
/// swift-corelibs-foundation provides on Linux too).
enum StorageKind: String, CaseIterable, CustomTestStringConvertible {
    case file, userDefaults

    var testDescription: String { rawValue }

    /// Two handles on one storage, as two processes would have.
    func makePair(in directory: TemporaryDirectory) -> (Preferences, Preferences) {
        switch self {
        case .file:
            let url = directory.file("preferences.json")
            return (Preferences(fileURL: url), Preferences(fileURL: url))
        case .userDefaults:
            let suite = "ToolboxTests-\(UUID().uuidString)"
            let first = UserDefaultsPreferencesStorage(suiteName: suite)!
            let second = UserDefaultsPreferencesStorage(suiteName: suite)!
            return (Preferences(storage: first), Preferences(storage: second))
        }
    }
}

@Suite struct PreferencesTests {
    @Test(arguments: StorageKind.allCases)
    func valuesRoundTripThroughTheStorage(kind: StorageKind) throws {
        let directory = try TemporaryDirectory()
        let (preferences, other) = kind.makePair(in: directory)
        #expect(preferences[.notificationsEnabled] == true)
        try preferences.set(false, for: .notificationsEnabled)
        let profile = Profile(name: "Ada", tags: ["math", "engines"])
        try preferences.set(profile, for: .profile)
        try preferences.set(3.25, for: Preferences.Key("scale", default: 1.0))
        try preferences.set("ünïcode ✓ \"quoted\"", for: Preferences.Key("title", default: ""))
        #expect(preferences[.notificationsEnabled] == false)
        if kind == .userDefaults { Thread.sleep(forTimeInterval: 0.25) }
        #expect(other[.notificationsEnabled] == false)
        #expect(other[.profile] == profile)
        #expect(other.value(for: Preferences.Key("scale", default: 1.0)) == 3.25)
        #expect(other.value(for: Preferences.Key("title", default: "")) == "ünïcode ✓ \"quoted\"")
        try other.removeValue(for: .notificationsEnabled)
        if kind == .userDefaults { Thread.sleep(forTimeInterval: 0.25) }
        #expect(preferences[.notificationsEnabled] == true)
        #expect(try preferences.contains("notificationsEnabled") == false)
    }

    @Test func theFileIsOneJSONObjectAPersonCanRead() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("settings.json")
        let preferences = Preferences(fileURL: url)
        try preferences.set(true, for: .notificationsEnabled)
        try preferences.set(Profile(name: "Ada", tags: []), for: .profile)
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text == "{\n  \"notificationsEnabled\": true,\n  \"profile\": {\"name\":\"Ada\",\"tags\":[]}\n}\n")
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        #expect(object?["notificationsEnabled"] as? Bool == true)
    }

    @Test func aValueOfAnotherTypeGivesTheDefaultAnErrorAndStaysStored() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("preferences.json")
        try Data("{\n  \"notificationsEnabled\": \"yes please\",\n  \"other\": 1\n}\n".utf8).write(to: url)
        let preferences = Preferences(fileURL: url)
        var errors = preferences.errors().makeAsyncIterator()
        #expect(preferences[.notificationsEnabled] == true)
        let error = await errors.next()
        #expect(error?.code == .valueNotDecodable)
        #expect(error?.key == "notificationsEnabled")
        #expect(preferences.lastError?.code == .valueNotDecodable)
        #expect(throws: PreferencesError.self) { try preferences.storedValue(for: .notificationsEnabled) }
        try preferences.set(2, for: Preferences.Key("other", default: 0))
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.contains("\"notificationsEnabled\": \"yes please\""))
        #expect(text.contains("\"other\": 2"))
    }

    @Test func aDamagedFileReadsAsDefaultsAndIsMovedAsideByTheNextWrite() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("preferences.json")
        try Data("{\"notificationsEnabled\": fal".utf8).write(to: url)
        let preferences = Preferences(fileURL: url)
        #expect(preferences[.notificationsEnabled] == true)
        #expect(preferences.lastError?.code == .damagedFile)
        try preferences.set(false, for: .notificationsEnabled)
        #expect(Preferences(fileURL: url)[.notificationsEnabled] == false)
        let aside = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasPrefix("preferences.json.damaged-") }
        #expect(aside.count == 1)
        #expect(try String(contentsOf: directory.file(aside[0]), encoding: .utf8) == "{\"notificationsEnabled\": fal")
    }

    @Test func writersOnOneFileFromManyThreadsKeepEveryKey() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("preferences.json")
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    let preferences = Preferences(fileURL: url)
                    for index in 0..<25 {
                        preferences[Preferences.Key("w\(writer)-\(index)", default: -1)] = index
                    }
                }
            }
        }
        let reader = Preferences(fileURL: url)
        #expect(try reader.storedKeys().count == 100)
        for writer in 0..<4 {
            for index in 0..<25 {
                #expect(reader.value(for: Preferences.Key("w\(writer)-\(index)", default: -1)) == index)
            }
        }
    }

    @Test func randomWritesMatchADictionaryAfterReopening() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("preferences.json")
        var model: [String: [Int]] = [:]
        var preferences = Preferences(fileURL: url)
        var random = SystemRandomNumberGenerator()
        for step in 0..<300 {
            let key = Preferences.Key<[Int]>("key \(Int.random(in: 0..<12, using: &random))", default: [])
            if Bool.random(using: &random) {
                let value = (0..<Int.random(in: 0...4, using: &random)).map { _ in Int.random(in: -1_000...1_000, using: &random) }
                try preferences.set(value, for: key)
                model[key.name] = value
            } else {
                try preferences.removeValue(for: key)
                model[key.name] = nil
            }
            if step % 50 == 0 { preferences = Preferences(fileURL: url) }
        }
        let reopened = Preferences(fileURL: url)
        #expect(try reopened.storedKeys() == model.keys.sorted())
        for (name, value) in model {
            #expect(try reopened.storedValue(for: Preferences.Key<[Int]>(name, default: [])) == value)
        }
    }

    @Test func changesArriveFromThisInstanceAndFromAnotherProcess() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("preferences.json")
        let preferences = Preferences(fileURL: url)
        var changes = preferences.changes(of: .notificationsEnabled).makeAsyncIterator()
        #expect(await changes.next() == true)
        try preferences.set(false, for: .notificationsEnabled)
        #expect(await changes.next() == false)
        // Another process's write: the file replaced behind this instance's back.
        try Data("{\"notificationsEnabled\": true}".utf8).write(to: url, options: .atomic)
        #expect(await changes.next() == true)
    }

    @Test func observationTracksReads() throws {
        let directory = try TemporaryDirectory()
        let preferences = Preferences(fileURL: directory.file("preferences.json"))
        let changed = Flag()
        withObservationTracking {
            _ = preferences[.notificationsEnabled]
        } onChange: {
            changed.set()
        }
        #expect(!changed.isSet)
        try preferences.set(false, for: .notificationsEnabled)
        #expect(changed.isSet)
    }

    @Test func keysMigrateByNameAndByTypeOnce() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("preferences.json")
        try Data("{\"notify\": true, \"fontSize\": \"14\", \"broken\": [1]}".utf8).write(to: url)
        let preferences = Preferences(fileURL: url)
        try preferences.migrateKey(named: "notify", to: .notificationsEnabled)
        try preferences.migrateKey(named: "notify", to: .notificationsEnabled)
        #expect(try preferences.storedValue(for: .notificationsEnabled) == true)
        #expect(try preferences.contains("notify") == false)

        let old = Preferences.Key("fontSize", default: "12")
        let new = Preferences.Key("fontSize", default: 12.0)
        try preferences.migrate(old, to: new) { Double($0) ?? 12 }
        try preferences.migrate(old, to: new) { Double($0) ?? 12 }
        #expect(try preferences.storedValue(for: new) == 14)

        let before = try Data(contentsOf: url)
        #expect(throws: PreferencesError.self) {
            try preferences.migrate(Preferences.Key("broken", default: ""), to: Preferences.Key("fixed", default: "")) { $0 }
        }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func thePropertyWrapperWorksOutsideSwiftUI() throws {
        let directory = try TemporaryDirectory()
        let preferences = Preferences(fileURL: directory.file("preferences.json"))
        final class Settings {
            let preferences: Preferences
            init(_ preferences: Preferences) {
                self.preferences = preferences
                _volume = Preference(wrappedValue: 5, "volume", in: preferences)
                _notifications = Preference(.notificationsEnabled, in: preferences)
            }
            @Preference var volume: Int
            @Preference var notifications: Bool
        }
        let settings = Settings(preferences)
        #expect(settings.volume == 5)
        settings.volume = 9
        settings.notifications = false
        #expect(Settings(Preferences(fileURL: directory.file("preferences.json"))).volume == 9)
        #expect(preferences[.notificationsEnabled] == false)
        try settings.$volume.reset()
        #expect(settings.volume == 5)
    }
}

/// A flag set from an observation callback.
final class Flag: @unchecked Sendable {
    // Invariant: `value` is touched only under `lock`.
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

@Suite struct PreferencesFileLocationTests {
    @Test func theFirstWriteCreatesTheDirectory() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("a/b/preferences.json")
        try Preferences(fileURL: url).set(false, for: .notificationsEnabled)
        #expect(Preferences(fileURL: url)[.notificationsEnabled] == false)
    }
}

@Suite struct UserDefaultsInteropTests {
    /// Values other code (`@AppStorage`, `UserDefaults.set`) stored natively read with typed keys.
    @Test func valuesStoredByUserDefaultsReadWithTypedKeys() throws {
        let suite = "ToolboxTests-\(UUID().uuidString)"
        let defaults = try #require(UserDefaults(suiteName: suite))
        let date = Date(timeIntervalSinceReferenceDate: 700_000_000.5)
        defaults.set(true, forKey: "flag")
        defaults.set(42, forKey: "count")
        defaults.set("text", forKey: "name")
        defaults.set(Data([1, 2, 3]), forKey: "blob")
        defaults.set(date, forKey: "when")
        defaults.set(["a", "b"], forKey: "list")
        let preferences = Preferences(storage: UserDefaultsPreferencesStorage(defaults: defaults, domainName: suite))
        #expect(preferences.value(for: Preferences.Key("flag", default: false)) == true)
        #expect(preferences.value(for: Preferences.Key("count", default: 0)) == 42)
        #expect(preferences.value(for: Preferences.Key("name", default: "")) == "text")
        #expect(preferences.value(for: Preferences.Key("blob", default: Data())) == Data([1, 2, 3]))
        #expect(preferences.value(for: Preferences.Key("when", default: Date.distantPast)) == date)
        #expect(preferences.value(for: Preferences.Key("list", default: [String]())) == ["a", "b"])
        try preferences.set(7, for: Preferences.Key("count", default: 0))
        #expect(defaults.integer(forKey: "count") == 7)
    }

    /// A value JSON cannot hold, stored by other code, reads as the default with a reported error
    /// and is left as it is.
    @Test func aValueJSONCannotHoldIsReportedNotDropped() throws {
        let suite = "ToolboxTests-\(UUID().uuidString)"
        let defaults = try #require(UserDefaults(suiteName: suite))
        defaults.set(Double.nan, forKey: "ratio")
        let preferences = Preferences(storage: UserDefaultsPreferencesStorage(defaults: defaults, domainName: suite))
        #expect(try preferences.storedKeys().contains("ratio"))
        #expect(preferences.value(for: Preferences.Key("ratio", default: 1.0)) == 1.0)
        #expect(preferences.lastError?.code == .valueNotDecodable)
        #expect(preferences.lastError?.key == "ratio")
        try preferences.set(2, for: Preferences.Key("other", default: 0))
        #expect(defaults.double(forKey: "ratio").isNaN)
    }
}

@Suite struct PreferencesFileFormatTests {
    /// A random string with the characters JSON must escape, brackets and braces a scanner could
    /// miscount, and text outside ASCII.
    static func awkwardText(using random: inout some RandomNumberGenerator) -> String {
        let pieces = ["a", "Z", "\"", "\\", "{", "}", "[", "]", ",", ":", " ", "\n", "\t", "\u{0}", "\u{1F}", "é", "✓", "🙂", "/", "\\u0041", "null", "true", "1e5"]
        return (0..<Int.random(in: 0...12, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    struct Nested: Codable, Equatable, Sendable {
        var text: String
        var list: [String]
        var table: [String: Double]
        var flag: Bool?
    }

    /// Random keys and values full of what JSON escapes, written, then read back by a new
    /// instance: every key and value comes back exactly, and the file is valid JSON.
    @Test func awkwardKeysAndValuesRoundTrip() throws {
        let seed = UInt64.random(in: 1...1_000_000)
        var random = SystemRandomNumberGenerator()
        let directory = try TemporaryDirectory()
        let url = directory.file("preferences.json")
        let preferences = Preferences(fileURL: url)
        var model: [String: Nested] = [:]
        for _ in 0..<60 {
            let key = Self.awkwardText(using: &random)
            let value = Nested(
                text: Self.awkwardText(using: &random),
                list: (0..<Int.random(in: 0...3, using: &random)).map { _ in Self.awkwardText(using: &random) },
                table: [Self.awkwardText(using: &random): Double(Int.random(in: -1_000...1_000, using: &random)) / 8],
                flag: Bool.random(using: &random) ? nil : Bool.random(using: &random)
            )
            try preferences.set(value, for: Preferences.Key(key, default: Nested(text: "", list: [], table: [:], flag: nil)))
            model[key] = value
        }
        let reopened = Preferences(fileURL: url)
        #expect(try reopened.storedKeys() == model.keys.sorted(), "seed \(seed)")
        for (key, value) in model {
            #expect(try reopened.storedValue(for: Preferences.Key(key, default: Nested(text: "", list: [], table: [:], flag: nil))) == value, "seed \(seed)")
        }
        #expect(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) is [String: Any])
    }
}
