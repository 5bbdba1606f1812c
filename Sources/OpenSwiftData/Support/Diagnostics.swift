import Foundation

/// Where OpenSwiftData reports a failure it cannot throw (a property getter, a collection's
/// subscript): standard error, one line each, and a handler you can replace.
///
/// ```swift
/// OpenSwiftDataDiagnostics.handler = { message in logger.error("\(message)") }
/// ```
public enum OpenSwiftDataDiagnostics {
    /// Receives each report. Defaults to writing the message, prefixed with `OpenSwiftData:`, to
    /// standard error.
    public static var handler: @Sendable (String) -> Void {
        get { Diagnostics.handler.load() }
        set { Diagnostics.handler.store(newValue) }
    }
}

/// The reporting behind ``OpenSwiftDataDiagnostics``.
package enum Diagnostics {
    static let handler = LockedValue<@Sendable (String) -> Void>({ message in
        FileHandle.standardError.write(Data("OpenSwiftData: \(message)\n".utf8))
    })

    /// Reports a failure that the API where it happened cannot throw.
    package static func report(_ message: String) {
        handler.load()(message)
    }
}
