import Foundation

/// A property that reads and writes a preference, in any type: a model, a service, a command-line
/// tool — SwiftUI not needed.
///
/// ```swift
/// final class Settings {
///     @Preference("notificationsEnabled") var notificationsEnabled = true
///     @Preference(.recentSearches, in: shared) var recentSearches
/// }
/// ```
///
/// Reading gives the stored value or the default; setting stores the new value and reports a
/// failure to the preferences' ``Preferences/errors()`` (use `$property.set(_:)` to handle it
/// where it happens). Inside an `@Observable` class, mark the property `@ObservationIgnored`: the
/// reads are observed through ``Preferences`` itself.
@propertyWrapper
public struct Preference<Value: Codable & Sendable>: Sendable {
    /// The key the property reads and writes.
    public let key: Preferences.Key<Value>
    /// The preferences the value is kept in.
    public let preferences: Preferences

    /// Creates a property for a key, kept in `preferences` (``Preferences/standard`` by default).
    public init(_ key: Preferences.Key<Value>, in preferences: Preferences = .standard) {
        self.key = key
        self.preferences = preferences
    }

    /// Creates a property for the key with this name, whose default is the property's initial value,
    /// as `@AppStorage("name") var value = default` does.
    public init(wrappedValue: Value, _ name: String, in preferences: Preferences = .standard) {
        self.init(Preferences.Key(name, default: wrappedValue), in: preferences)
    }

    /// The stored value, or the key's default.
    public var wrappedValue: Value {
        get { preferences.value(for: key) }
        nonmutating set { preferences[key] = newValue }
    }

    /// The property itself, for `$property.changes`, `$property.set(_:)` and `$property.reset()`.
    public var projectedValue: Preference<Value> { self }

    /// The value now, then after each change.
    public var changes: AsyncStream<Value> { preferences.changes(of: key) }

    /// Stores a new value, throwing when it can't be stored.
    public func set(_ value: Value) throws {
        try preferences.set(value, for: key)
    }

    /// Removes the stored value, so that reads give the default again.
    public func reset() throws {
        try preferences.removeValue(for: key)
    }
}
