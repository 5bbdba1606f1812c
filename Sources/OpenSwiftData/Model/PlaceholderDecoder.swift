import Foundation

/// A decoder that makes the emptiest value a `Decodable` type accepts: zero for numbers, `false`,
/// empty strings and collections, `nil` for optionals, and the standard placeholders
/// (``_PlaceholderValue``) for the types that have one, at any depth.
///
/// A property whose stored value cannot be loaded reads as a placeholder rather than stopping the
/// process (see ``_osdPlaceholder(_:property:)``); this is how a custom `Codable` type gets one.
/// A value inside it whose `init(from:)` rejects such values but that holds no references (a
/// `String`-backed enum without an empty case, say) takes its all-zero value: an enum's first case.
/// One that holds references is decoded again offering its first key
/// (``offersFirstKey``): an enum with associated values becomes its first case, holding
/// placeholders (`.text("")`).
struct PlaceholderDecoder: Decoder {
    /// How many `Decodable` values enclose this one: a type that contains itself through
    /// something other than an optional or a collection would otherwise never end.
    let depth: Int
    /// Whether a keyed container lists one key, its key type's first (the all-zero value of a
    /// key type without references: a synthesized `CodingKeys` enum's first case), rather than
    /// none. A `Codable` enum with associated values decodes the case its only key names, so it
    /// decodes as its first case; other types do not read the list.
    let offersFirstKey: Bool
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(depth: Int = 0, offersFirstKey: Bool = false) {
        self.depth = depth
        self.offersFirstKey = offersFirstKey
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { Unkeyed(decoder: self) }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(decoder: self) }

    /// The placeholder of a value inside the one being decoded.
    func placeholder<T: Decodable>(_ type: T.Type) throws -> T {
        if let value = Placeholder.standard(T.self) { return value }
        guard depth < 32 else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "\(T.self) nests too deeply for a placeholder"))
        }
        do {
            return try T(from: PlaceholderDecoder(depth: depth + 1))
        } catch let emptyValueRejected {
            if let zero = Placeholder.zeroed(T.self) { return zero }
            do {
                return try T(from: PlaceholderDecoder(depth: depth + 1, offersFirstKey: true))
            } catch {
                throw emptyValueRejected
            }
        }
    }

    /// Every key is absent: optionals decode as `nil`, everything else as its placeholder.
    private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: PlaceholderDecoder
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] {
            guard decoder.offersFirstKey, let first = Placeholder.zeroed(Key.self) else { return [] }
            return [first]
        }
        func contains(_ key: Key) -> Bool { false }
        func decodeNil(forKey key: Key) throws -> Bool { true }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder.placeholder(T.self) }
        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try decoder.container(keyedBy: NestedKey.self)
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { Unkeyed(decoder: decoder) }
        func superDecoder() throws -> any Decoder { decoder }
        func superDecoder(forKey key: Key) throws -> any Decoder { decoder }
    }

    /// An empty sequence; a type that reads a fixed number of elements anyway gets placeholders.
    private struct Unkeyed: UnkeyedDecodingContainer {
        let decoder: PlaceholderDecoder
        var codingPath: [any CodingKey] { [] }
        var count: Int? { 0 }
        var isAtEnd: Bool { true }
        var currentIndex: Int { 0 }
        mutating func decodeNil() throws -> Bool { true }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.placeholder(T.self) }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try decoder.container(keyedBy: NestedKey.self)
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { self }
        mutating func superDecoder() throws -> any Decoder { decoder }
    }

    /// A value that is present: its placeholder.
    private struct Single: SingleValueDecodingContainer {
        let decoder: PlaceholderDecoder
        var codingPath: [any CodingKey] { [] }
        func decodeNil() -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.placeholder(T.self) }
    }
}
