import Foundation

extension ModelConfiguration {
    /// Throws when the configuration's name cannot name its store file.
    ///
    /// A configuration created without a URL keeps its store in a file named after it
    /// (`name.store`), so the name must be a file name: not empty, `.` or `..`, without `/` or
    /// NUL, and at most 249 bytes (255 with the extension).
    ///
    /// - Throws: ``SwiftDataError/configurationFileNameContainsInvalidCharacters`` or
    ///   ``SwiftDataError/configurationFileNameTooLong``.
    public func validate() throws {
        guard fileIsNamedAfterConfiguration else { return }
        if name.isEmpty || name == "." || name == ".." || name.contains("/") || name.contains("\0") {
            throw SwiftDataError(
                .configurationFileNameContainsInvalidCharacters,
                reason: "Configuration \(name.debugDescription) names its store file \(name.debugDescription).store, which is no file name: give it a name without \"/\", or a url:")
        }
        if name.utf8.count > 249 {
            throw SwiftDataError(
                .configurationFileNameTooLong,
                reason: "Configuration \(name.prefix(40))… is \(name.utf8.count) bytes long; its store file's name can have 255 bytes, \".store\" included: give it a shorter name, or a url:")
        }
    }
}
