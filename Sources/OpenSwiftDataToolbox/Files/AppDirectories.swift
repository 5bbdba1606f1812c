import Foundation

/// The directories an app keeps its files in, on every platform.
///
/// On Apple platforms they are the system's (Documents, Application Support, Caches, Preferences,
/// the temporary directory). On Linux they follow the XDG Base Directory specification, each in a
/// folder named for the app: `$XDG_DATA_HOME` (`~/.local/share`) for application support,
/// `$XDG_CACHE_HOME` (`~/.cache`) for caches, `$XDG_CONFIG_HOME` (`~/.config`) for preferences,
/// `$XDG_DOCUMENTS_DIR` (`~/Documents`) for documents, and `$TMPDIR` (`/tmp`). A server names one
/// root for all of them with ``rooted(at:)``.
///
/// Nothing is created until ``createDirectories()`` is called.
public struct AppDirectories: Sendable, Equatable {
    /// Files the user creates and sees.
    public var documents: URL
    /// Files the app needs and the user doesn't see: stores, downloaded content.
    public var applicationSupport: URL
    /// Files the app can make again; the system may remove them when space runs low.
    public var caches: URL
    /// Small settings files.
    public var preferences: URL
    /// Files needed only for a moment.
    public var temporary: URL

    /// Creates a set of directories from explicit locations.
    public init(documents: URL, applicationSupport: URL, caches: URL, preferences: URL, temporary: URL) {
        self.documents = documents
        self.applicationSupport = applicationSupport
        self.caches = caches
        self.preferences = preferences
        self.temporary = temporary
    }

    /// Directories that all live under one folder: `Documents`, `Application Support`, `Caches`,
    /// `Preferences` and `tmp`, for servers, tests and portable tools.
    public static func rooted(at root: URL) -> AppDirectories {
        AppDirectories(
            documents: root.appendingPathComponent("Documents", isDirectory: true),
            applicationSupport: root.appendingPathComponent("Application Support", isDirectory: true),
            caches: root.appendingPathComponent("Caches", isDirectory: true),
            preferences: root.appendingPathComponent("Preferences", isDirectory: true),
            temporary: root.appendingPathComponent("tmp", isDirectory: true)
        )
    }

    /// The current user's directories for the app named `appName` (the bundle identifier or the
    /// process name when not given).
    ///
    /// - Parameters:
    ///   - appName: The name of the app's folder in each shared directory.
    ///   - environment: The environment whose `HOME`, `TMPDIR` and `XDG_*` variables are read on
    ///     Linux; the process's own by default.
    public static func forApp(
        named appName: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> AppDirectories {
        let name = appName ?? Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
        #if canImport(Darwin)
        let files = FileManager.default
        func system(_ directory: FileManager.SearchPathDirectory) -> URL {
            files.urls(for: directory, in: .userDomainMask).first ?? files.temporaryDirectory
        }
        let library = system(.libraryDirectory)
        return AppDirectories(
            documents: system(.documentDirectory),
            applicationSupport: system(.applicationSupportDirectory).appendingPathComponent(name, isDirectory: true),
            caches: system(.cachesDirectory).appendingPathComponent(name, isDirectory: true),
            preferences: library.appendingPathComponent("Preferences", isDirectory: true),
            temporary: files.temporaryDirectory
        )
        #else
        let home = URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory(), isDirectory: true)
        /// An XDG variable, used only when it holds an absolute path, as the specification says.
        func xdg(_ variable: String, _ fallback: String) -> URL {
            if let value = environment[variable], value.hasPrefix("/") {
                return URL(fileURLWithPath: value, isDirectory: true)
            }
            return home.appendingPathComponent(fallback, isDirectory: true)
        }
        let temporary = environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        return AppDirectories(
            documents: xdg("XDG_DOCUMENTS_DIR", "Documents"),
            applicationSupport: xdg("XDG_DATA_HOME", ".local/share").appendingPathComponent(name, isDirectory: true),
            caches: xdg("XDG_CACHE_HOME", ".cache").appendingPathComponent(name, isDirectory: true),
            preferences: xdg("XDG_CONFIG_HOME", ".config").appendingPathComponent(name, isDirectory: true),
            temporary: URL(fileURLWithPath: temporary, isDirectory: true)
        )
        #endif
    }

    /// Creates every directory that doesn't exist yet, with its parents.
    public func createDirectories() throws {
        for directory in [documents, applicationSupport, caches, preferences, temporary] {
            try AtomicFile.createDirectory(at: directory)
        }
    }
}
