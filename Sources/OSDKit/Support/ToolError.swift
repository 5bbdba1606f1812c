/// A failure `osd` reports as one message and a non-zero exit status.
package struct ToolError: Error, CustomStringConvertible, Equatable {
    /// What went wrong, naming the file, model, field, line or column involved.
    package let message: String

    /// Creates an error with the message the tool prints.
    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}
