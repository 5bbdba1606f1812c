import OpenSwiftData

/// The attribute types a schema file may name: every type OpenSwiftData stores natively, and
/// arrays, sets and dictionaries of them (stored as JSON).
enum AttributeType {
    /// The scalar types and how the store keeps them.
    static let scalars: [String: StorageClass] = [
        "String": .text, "URL": .text,
        "Int": .integer, "Int8": .integer, "Int16": .integer, "Int32": .integer, "Int64": .integer,
        "UInt8": .integer, "UInt16": .integer, "UInt32": .integer, "Bool": .integer,
        "UInt": .unsignedInteger, "UInt64": .unsignedInteger,
        "Double": .real, "Float": .real, "Date": .date, "Data": .blob, "UUID": .uuid, "Decimal": .decimal,
    ]

    /// How the store keeps values of `type` (without a trailing `?`), or `nil` for an unknown type.
    static func storage(of type: String) -> StorageClass? {
        if let scalar = scalars[type] { return scalar }
        if type.hasPrefix("["), type.hasSuffix("]") {
            let inner = type.dropFirst().dropLast()
            let parts = inner.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            return parts.allSatisfy { scalars[$0] != nil } ? .json : nil
        }
        if type.hasPrefix("Set<"), type.hasSuffix(">") {
            return scalars[String(type.dropFirst(4).dropLast())] != nil ? .json : nil
        }
        return nil
    }

    /// Whether `text` spells a Swift type: a name, qualified (`Trip.Status`) or generic
    /// (`Box<Int>`), an array or dictionary (`[Tag]`, `[String: Tag]`), each part optional or not.
    static func isTypeName(_ text: String) -> Bool {
        var parser = TypeNameParser(text)
        return parser.type() && parser.isAtEnd
    }

    /// Whether `text` is a valid Swift identifier (no keywords check beyond the common ones).
    static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.first, first.isLetter || first == "_" else { return false }
        let keywords: Set = ["class", "struct", "enum", "var", "let", "func", "init", "self", "Self", "in", "is", "as", "default", "return", "import", "protocol", "extension", "nil", "true", "false", "operator", "static", "where", "while", "for", "if", "else", "switch", "case", "do", "try", "throw", "throws", "catch", "repeat", "guard", "defer", "break", "continue", "public", "private", "internal", "fileprivate", "deinit", "subscript", "typealias", "associatedtype", "inout", "super", "Any", "Type", "Protocol"]
        return text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } && !keywords.contains(text)
    }
}

/// Reads a Swift type's spelling (``AttributeType/isTypeName(_:)``).
private struct TypeNameParser {
    private let characters: [Character]
    private var position = 0

    init(_ text: String) {
        characters = Array(text)
    }

    var isAtEnd: Bool {
        mutating get { skipSpaces(); return position == characters.count }
    }

    /// A type: a name or a collection, then any number of `?`.
    mutating func type() -> Bool {
        skipSpaces()
        let read = take("[") ? collection() : qualifiedName()
        guard read else { return false }
        while take("?") {}
        return true
    }

    /// `[Element]` or `[Key: Value]`, after the `[`.
    private mutating func collection() -> Bool {
        guard type() else { return false }
        if take(":"), !type() { return false }
        return take("]")
    }

    /// `Name`, `Outer.Name`, `Name<Argument, …>`.
    private mutating func qualifiedName() -> Bool {
        repeat {
            guard identifier() else { return false }
        } while take(".")
        guard take("<") else { return true }
        repeat {
            guard type() else { return false }
        } while take(",")
        return take(">")
    }

    private mutating func identifier() -> Bool {
        skipSpaces()
        let start = position
        while position < characters.count, characters[position].isLetter || characters[position] == "_"
            || (position > start && characters[position].isNumber) {
            position += 1
        }
        return AttributeType.isIdentifier(String(characters[start..<position]))
    }

    private mutating func take(_ character: Character) -> Bool {
        skipSpaces()
        guard position < characters.count, characters[position] == character else { return false }
        position += 1
        return true
    }

    private mutating func skipSpaces() {
        while position < characters.count, characters[position] == " " { position += 1 }
    }
}
