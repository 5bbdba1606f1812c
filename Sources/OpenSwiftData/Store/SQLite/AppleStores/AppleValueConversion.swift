import Foundation

/// How an import turns the bytes Core Data's value transformer wrote for a transformable
/// attribute into the value the app's property keeps. (An OpenSwiftData addition.)
///
/// Without a conversion, a transformable attribute is imported as the bytes Core Data wrote, which
/// the app's property reads only if its own transformer reads that format. Name a conversion for
/// the attribute (`"Entity.property"`) in
/// ``ModelContainer/importAppleStore(at:ignoring:converting:)``:
///
/// ```swift
/// // Core Data kept `Note.tags` ([String]) through NSSecureUnarchiveFromDataTransformer;
/// // the app's model now declares `var tags: [String]`.
/// try container.importAppleStore(at: oldStoreURL, converting: ["Note.tags": .keyedArchive])
/// ```
public struct AppleValueConversion: Sendable {
    enum Kind: Sendable {
        case keyedArchive
        case custom(@Sendable (Data) throws -> Data)
    }

    let kind: Kind

    /// Reads the bytes as an `NSKeyedArchiver` archive — what `NSSecureUnarchiveFromDataTransformer`
    /// and the default transformer write — of strings, numbers, dates, data, UUIDs, URLs, and
    /// arrays, sets and string-keyed dictionaries of them, and keeps the value as a `Codable`
    /// property of the same shape does (`[String]`, `[String: Int]`, `Set<URL>`, …).
    ///
    /// An archive that holds anything else (an app's own `NSCoding` class) stops the import with
    /// an error naming the model, the property, the row and the class: convert such values with
    /// ``custom(_:)``.
    public static let keyedArchive = AppleValueConversion(kind: .keyedArchive)

    /// Passes the bytes through `convert`, and keeps what it returns as the bytes of the app's
    /// property: a `Data` property, or one declared with `.transformable(by:)` whose transformer
    /// reads them. An error `convert` throws stops the import, naming the model, the property and
    /// the row; nothing is imported then.
    public static func custom(_ convert: @escaping @Sendable (Data) throws -> Data) -> AppleValueConversion {
        AppleValueConversion(kind: .custom(convert))
    }

    /// The storage the converted values take.
    var storage: StorageClass {
        switch kind {
        case .keyedArchive: .json
        case .custom: .blob
        }
    }

    /// Converts one value; throws a description of what went wrong.
    func convert(_ bytes: [UInt8]) throws -> TypedValue {
        switch kind {
        case .keyedArchive:
            return .json(try AppleJSONValue(keyedArchive: bytes).text())
        case .custom(let convert):
            return .data(Array(try convert(Data(bytes))))
        }
    }
}
