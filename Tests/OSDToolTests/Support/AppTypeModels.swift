import Foundation
import OpenSwiftData

/// A `Codable` enum of the app's own, as models commonly hold.
enum Mood: String, Codable, Sendable {
    case calm, stormy
}

/// A `Codable` struct of the app's own.
struct Position: Codable, Hashable, Sendable {
    var latitude: Double
    var longitude: Double
}

/// A value that is not `Codable`: only a value transformer can store it.
final class Pennant: Equatable, @unchecked Sendable {
    let code: String

    init(code: String) { self.code = code }

    static func == (lhs: Pennant, rhs: Pennant) -> Bool { lhs.code == rhs.code }
}

/// Stores a ``Pennant`` as the UTF-8 bytes of its code.
final class PennantTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }

    override func transformedValue(_ value: Any?) -> Any? {
        (value as? Pennant).map { Data($0.code.utf8) }
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        (value as? Data).map { Pennant(code: String(decoding: $0, as: UTF8.self)) }
    }

    /// The name `Logbook.spare` finds its transformer by.
    static let registeredName = NSValueTransformerName("LogbookSparePennant")

    /// Registers a transformer under ``registeredName`` (once per process is enough; again is harmless).
    static func register() {
        ValueTransformer.setValueTransformer(PennantTransformer(), forName: registeredName)
    }
}

/// The model a store with the app's own types is written with. Its entity is `Logbook`, the
/// class `osd generate models` makes from that store (`Generated/LogbookModels.swift`) reads it.
enum LogbookSource {
    @Model
    final class Logbook {
        var title: String
        var mood: Mood
        var moods: [Mood] = []
        var position: Position?
        @Attribute(.transformable(by: PennantTransformer.self)) var pennant: Pennant
        @Attribute(.transformable(by: "LogbookSparePennant")) var spare: Pennant?

        init(title: String, mood: Mood, moods: [Mood], position: Position?, pennant: Pennant, spare: Pennant?) {
            self.title = title
            self.mood = mood
            self.moods = moods
            self.position = position
            self.pennant = pennant
            self.spare = spare
        }
    }
}
