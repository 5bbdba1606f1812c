import Foundation

extension Preferences {
    /// The app's own preferences: `UserDefaults.standard` on Apple platforms, and on Linux the file
    /// `preferences.json` in the app's preferences directory (`$XDG_CONFIG_HOME/APP`, see
    /// ``AppDirectories``).
    public static let standard: Preferences = {
        #if canImport(Darwin)
        return Preferences(storage: UserDefaultsPreferencesStorage(defaults: .standard))
        #else
        return Preferences(fileURL: AppDirectories.forApp().preferences.appendingPathComponent("preferences.json"))
        #endif
    }()
}
