import Foundation

/// Where a ``Preferences`` keeps its values: a file of its own (``FilePreferencesStorage``) or a
/// `UserDefaults` suite (``UserDefaultsPreferencesStorage``).
///
/// A storage holds each value as the JSON text its `Codable` encoding gives, and never decodes it:
/// ``Preferences`` does, with the key's type. Conform to store preferences elsewhere.
public protocol PreferencesStorage: AnyObject, Sendable {
    /// Returns every stored key and its value's JSON text, as stored now (another process's
    /// changes included).
    func load() throws -> [String: Data]

    /// Changes the stored values in one atomic step that no other writer interleaves with.
    ///
    /// - Parameters:
    ///   - changes: Given the values as stored now, returns the new JSON text of each key to
    ///     change, or `nil` to remove a key. Keys it doesn't return keep their values.
    ///   - report: Receives problems the storage recovered from (a damaged file moved aside).
    /// - Returns: The values after the change.
    func update(
        _ changes: ([String: Data]) throws -> [String: Data?],
        report: (PreferencesError) -> Void
    ) throws -> [String: Data]

    /// Returns whether the stored values may have changed since the last `load` or `update`;
    /// a cheap check, made before every read.
    func mayHaveChanged() -> Bool
}
