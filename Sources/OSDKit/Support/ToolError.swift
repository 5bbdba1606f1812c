/// A failure `osd` reports as one message and a non-zero exit status.
public struct ToolError: Error, CustomStringConvertible, Equatable {
    /// What went wrong, naming the file, model, field, line or column involved.
    public let message: String

    /// Creates an error with the message the tool prints.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
