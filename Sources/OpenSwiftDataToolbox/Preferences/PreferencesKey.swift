import Foundation

extension Preferences {
    /// A typed preference: its name in the storage and the value a read gives when none is stored
    /// (or the stored one isn't of this type).
    ///
    /// ```swift
    /// extension Preferences.Key where Value == Bool {
    ///     static let notificationsEnabled = Preferences.Key("notificationsEnabled", default: true)
    /// }
    /// ```
    public struct Key<Value: Codable & Sendable>: Sendable {
        /// The key's name in the storage.
        public let name: String
        /// The value a read gives when none is stored.
        public let defaultValue: Value

        /// Creates a key with a name and a default value.
        public init(_ name: String, default defaultValue: Value) {
            self.name = name
            self.defaultValue = defaultValue
        }
    }
}
