import Foundation

/// The stored form of one value of each `Codable` type this process has read or written: the
/// placeholder of last resort for a type that has no placeholder of its own (an enum with
/// associated values, a type whose `init(from:)` rejects empty values), so that reading such a
/// property of a row deleted elsewhere does not stop the process.
///
/// The JSON text is kept, not the value: each placeholder is decoded afresh, so no instance is
/// shared between threads. The first value seen is kept, up to `maximumLength` bytes of text.
///
/// Noting is on the path of every `Codable` value read or written, on every thread: it only reads
/// (threads do not wait for each other) once a type has its sample; the one write per type is
/// the first value of the type the process sees.
enum PlaceholderSamples {
    /// The longest text kept for a type.
    static let maximumLength = 64 * 1024

    private static let texts = ReadMostlyValue<[ObjectIdentifier: String]>([:])

    /// The stored bytes of one value of each `.transformable(by:)` type that is not `Codable`,
    /// with the transformation that turns them back into a value.
    private static let transformed = ReadMostlyValue<[ObjectIdentifier: TransformedSample]>([:])

    private struct TransformedSample: @unchecked Sendable {
        // @unchecked: the transformation holds a class metatype and a name, both immutable.
        let data: Data
        let transformation: _ValueTransformation
    }

    /// Keeps `text`, the JSON of a value of `type`, unless a value of the type was kept before.
    static func note<T>(_ text: String, of type: T.Type) {
        guard text.utf8.count <= maximumLength else { return }
        let key = ObjectIdentifier(type)
        guard texts.read({ $0[key] == nil }) else { return }
        texts.write { texts in
            if texts[key] == nil { texts[key] = text }
        }
    }

    /// A value of `type` decoded from the text kept for it, or `nil` when none was kept; throws
    /// when the text no longer decodes (an `init(from:)` that depends on more than its input).
    static func sample<T: Decodable>(of type: T.Type) throws -> T? {
        guard let text = texts.read({ $0[ObjectIdentifier(type)] }) else { return nil }
        return try JSONCoding.decoder().decode(T.self, from: Data(text.utf8))
    }

    /// Keeps `data`, the stored bytes of a value of `type` that `transformation` made, unless a
    /// value of the type was kept before.
    static func note<T>(_ data: Data, of type: T.Type, transformedBy transformation: _ValueTransformation) {
        guard data.count <= maximumLength else { return }
        let key = ObjectIdentifier(type)
        guard transformed.read({ $0[key] == nil }) else { return }
        transformed.write { samples in
            if samples[key] == nil { samples[key] = TransformedSample(data: data, transformation: transformation) }
        }
    }

    /// Forgets the value kept for `type`, as if this process had never stored or loaded one.
    /// For tests of the store fallback (``Placeholder/loadStoredModels(like:)``).
    static func forget<T>(_ type: T.Type) {
        let key = ObjectIdentifier(type)
        texts.write { _ = $0.removeValue(forKey: key) }
        transformed.write { _ = $0.removeValue(forKey: key) }
    }

    /// A value of a `.transformable(by:)` type made afresh from the bytes kept for it, or `nil`
    /// when none were kept.
    static func transformedSample<T>(of type: T.Type) throws -> T? {
        guard let sample = transformed.read({ $0[ObjectIdentifier(type)] }) else { return nil }
        return try sample.transformation.value(from: sample.data, as: T.self)
    }
}
