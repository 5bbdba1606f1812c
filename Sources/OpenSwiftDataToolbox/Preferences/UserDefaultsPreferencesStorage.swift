import Foundation

/// Preferences kept in a `UserDefaults` domain: the app's own or an app group's suite, shared with
/// `@AppStorage` and with code that uses `UserDefaults` directly.
///
/// Booleans, numbers, strings, arrays and dictionaries are stored as `UserDefaults` stores them,
/// so a value written with `@AppStorage("name")` reads with `Preferences.Key("name", …)` of the same
/// type, and the other way round. `Data` and `Date` values stored by other code read as their
/// `Codable` encodings do (`Data` as base64, `Date` as seconds since 2001). Other `Codable` values
/// are stored as their JSON structure. A `nil` optional removes the value.
///
/// Other processes' changes are seen at most a fifth of a second late.
public final class UserDefaultsPreferencesStorage: PreferencesStorage, @unchecked Sendable {
    // Invariant for `@unchecked Sendable`: `UserDefaults` is documented as thread-safe; the
    // remaining state is behind `state`.
    /// The defaults the values are kept in.
    public let defaults: UserDefaults
    private let domainName: String?
    private let state = Locked<Date?>(nil)

    /// Creates a storage over `defaults`, whose keys are those of the domain `domainName` (the
    /// suite's name, or the bundle identifier for `.standard`); without a domain name, every key
    /// `defaults` can read (registered and global keys included).
    public init(defaults: UserDefaults, domainName: String? = Bundle.main.bundleIdentifier) {
        self.defaults = defaults
        self.domainName = domainName
    }

    /// Creates a storage over the suite `suiteName` (an app group's identifier, say), or returns
    /// `nil` when `UserDefaults` refuses the name.
    public convenience init?(suiteName: String) {
        guard let defaults = UserDefaults(suiteName: suiteName) else { return nil }
        self.init(defaults: defaults, domainName: suiteName)
    }

    /// Returns every key of the domain and its value as JSON text.
    public func load() throws -> [String: Data] {
        state.withLock { $0 = Date() }
        // Without a domain name (a tool with no bundle identifier), every key the defaults can
        // read, registered and global ones included.
        let domain = domainName.map { defaults.persistentDomain(forName: $0) ?? [:] } ?? defaults.dictionaryRepresentation()
        var values: [String: Data] = [:]
        for (key, object) in domain {
            // A value JSON cannot hold (a NaN stored natively, say) stays visible: its text, which no
            // key's type decodes, so a read gives the default and reports the value.
            values[key] = Self.json(from: object) ?? Data("<not JSON: \(object)>".utf8)
        }
        return values
    }

    /// Applies changes, each key set as `UserDefaults` stores its value.
    public func update(
        _ changes: ([String: Data]) throws -> [String: Data?],
        report: (PreferencesError) -> Void
    ) throws -> [String: Data] {
        var values = try load()
        for (key, json) in try changes(values) {
            var object: Any = NSNull()
            if let json {
                do {
                    object = try JSONSerialization.jsonObject(with: json, options: .fragmentsAllowed)
                } catch {
                    throw PreferencesError(.valueNotEncodable, key: key, reason: "not a property-list value: \(error)")
                }
            }
            if object is NSNull {
                defaults.removeObject(forKey: key)
                values[key] = nil
                continue
            }
            defaults.set(object, forKey: key)
            values[key] = json
        }
        return values
    }

    /// Returns `true` when the domain was last read more than a fifth of a second ago.
    public func mayHaveChanged() -> Bool {
        state.withLock { loaded in loaded.map { Date().timeIntervalSince($0) > 0.2 } ?? true }
    }

    /// The JSON text of a property-list object, with `Data` and `Date` as `Codable` encodes them,
    /// or `nil` for a value JSON cannot hold.
    static func json(from object: Any) -> Data? {
        func normalized(_ object: Any) -> Any {
            switch object {
            case let data as Data: return data.base64EncodedString()
            case let date as Date: return date.timeIntervalSinceReferenceDate
            case let array as [Any]: return array.map(normalized)
            case let dictionary as [String: Any]: return dictionary.mapValues(normalized)
            default: return object
            }
        }
        let value = normalized(object)
        guard JSONSerialization.isValidJSONObject([value]) else { return nil }
        do {
            return try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys])
        } catch {
            return nil
        }
    }
}
