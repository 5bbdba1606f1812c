import Foundation
import OpenSwiftData

/// A note, synchronized between devices.
@Model
final class Note {
    var text: String
    var done: Bool = false
    var created: Date = Date()

    init(text: String) {
        self.text = text
    }
}
