import Foundation

/// A value read from a store Apple's frameworks wrote, on its way to an OpenSwiftData property
/// that keeps `Codable` values as JSON: a composite attribute's fields, or what a keyed archive
/// holds. It is encoded with the store's own JSON settings, so that the text equals what the
/// app's `Codable` type would write for the same value.
indirect enum AppleJSONValue: Codable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case decimal(Decimal)
    case url(URL)
    case array([AppleJSONValue])
    case object([String: AppleJSONValue])

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let flag): try container.encode(flag)
        case .int(let number): try container.encode(number)
        case .double(let number): try container.encode(number)
        case .string(let text): try container.encode(text)
        case .date(let date): try container.encode(date)
        case .data(let data): try container.encode(data)
        case .uuid(let uuid): try container.encode(uuid)
        case .decimal(let decimal): try container.encode(decimal)
        case .url(let url): try container.encode(url)
        case .array(let items): try container.encode(items)
        case .object(let fields): try container.encode(fields)
        }
    }

    /// Reads JSON as it is (numbers as integers when they are whole and fit, else doubles).
    ///
    /// A decoder cannot say which kind of value comes next, so each kind is tried in turn; a value
    /// of none of them throws from the last try (an object), so no error is lost.
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Int64.self) {
            self = .int(number)
        } else if let number = try? container.decode(Double.self) {
            self = .double(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let items = try? container.decode([AppleJSONValue].self) {
            self = .array(items)
        } else {
            self = .object(try container.decode([String: AppleJSONValue].self))
        }
    }

    /// The value as JSON text, with the settings the store writes `Codable` values with.
    func text() throws -> String {
        String(decoding: try JSONCoding.encoder().encode(self), as: UTF8.self)
    }

    /// A decoded column value as JSON: dates as the seconds `Date`'s `Codable` writes, data as
    /// base64, and bytes that hold JSON (SwiftData keeps arrays inside composites so) as that JSON.
    init(_ value: TypedValue) {
        switch value {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .int(let number): self = .int(number)
        case .uint(let number): self = number <= UInt64(Int64.max) ? .int(Int64(number)) : .double(Double(number))
        case .double(let number): self = .double(number)
        case .date(let date): self = .date(date)
        case .string(let text): self = .string(text)
        case .uuid(let uuid): self = .uuid(uuid)
        case .decimal(let decimal): self = .decimal(decimal)
        case .json(let text): self = Self.parsed(Array(text.utf8)) ?? .string(text)
        case .data(let bytes): self = Self.parsed(bytes) ?? .data(Data(bytes))
        }
    }

    /// The JSON array or object `bytes` hold, or `nil` when they hold none: bytes that are not
    /// JSON, or that parse only as a number or a string, are not taken for JSON.
    private static func parsed(_ bytes: [UInt8]) -> AppleJSONValue? {
        guard let first = bytes.first(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }),
              first == UInt8(ascii: "[") || first == UInt8(ascii: "{") else { return nil }
        do {
            return try JSONCoding.decoder().decode(AppleJSONValue.self, from: Data(bytes))
        } catch {
            return nil   // bytes that only start like JSON: kept as bytes
        }
    }

    /// A composite attribute's value from its fields' values: an object of the fields that hold
    /// a value (as `Codable` leaves out a `nil` optional), or `null` when none does.
    static func composite(_ leaves: [(path: [String], value: TypedValue)], isOptional: Bool) -> AppleJSONValue {
        var root: [String: AppleJSONValue] = [:]
        func set(_ value: AppleJSONValue, at path: ArraySlice<String>, in object: inout [String: AppleJSONValue]) {
            guard let first = path.first else { return }
            if path.count == 1 {
                object[first] = value
                return
            }
            var child: [String: AppleJSONValue] = if case .object(let fields)? = object[first] { fields } else { [:] }
            set(value, at: path.dropFirst(), in: &child)
            object[first] = .object(child)
        }
        for (path, value) in leaves where value != .null {
            set(AppleJSONValue(value), at: path[...], in: &root)
        }
        return root.isEmpty && isOptional ? .null : .object(root)
    }
}

extension AppleJSONValue {
    /// Why a keyed archive's value has no JSON form.
    struct ArchiveFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// The value an `NSKeyedArchiver` archive holds (what Core Data's
    /// `NSSecureUnarchiveFromDataTransformer` writes): strings, numbers, dates, data, UUIDs, URLs,
    /// `NSNull`, and arrays, sets and dictionaries with string keys of them.
    init(keyedArchive bytes: [UInt8]) throws(ArchiveFailure) {
        let archive: KeyedArchive
        do {
            archive = try KeyedArchive(try BinaryPropertyList.parse(bytes))
        } catch {
            throw ArchiveFailure(description: "not a keyed archive (\(error))")
        }
        var budget = 1_000_000
        self = try Self.value(archive.root, in: archive, depth: 0, budget: &budget)
    }

    private static func value(_ reference: Int, in archive: KeyedArchive, depth: Int, budget: inout Int) throws(ArchiveFailure) -> AppleJSONValue {
        budget -= 1
        guard depth < 64, budget > 0 else { throw ArchiveFailure(description: "the archive nests deeper or holds more values than a value can") }
        guard let object = archive.object(reference) else { return .null }   // $null
        switch object {
        case .string(let text): return .string(text)
        case .integer(let number): return .int(number)
        case .real(let number): return .double(number)
        case .bool(let flag): return .bool(flag)
        case .data(let bytes): return .data(Data(bytes))
        case .date(let date): return .date(date)
        default: break
        }
        let className = archive.className(of: reference) ?? "an object of no class"
        switch className {
        case "NSString", "NSMutableString":
            guard let text = archive.text(reference) else { break }
            return .string(text)
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
            var items: [AppleJSONValue] = []
            for element in archive.elements(of: reference) { items.append(try value(element, in: archive, depth: depth + 1, budget: &budget)) }
            return .array(items)
        case "NSDictionary", "NSMutableDictionary":
            var fields: [String: AppleJSONValue] = [:]
            for (key, element) in archive.entries(of: reference) {
                guard let name = archive.text(key) else { throw ArchiveFailure(description: "a dictionary with a key that is not a string") }
                fields[name] = try value(element, in: archive, depth: depth + 1, budget: &budget)
            }
            return .object(fields)
        case "NSDate":
            guard let seconds = archive.value("NS.time", of: reference) else { break }
            if case .real(let number) = seconds { return .date(Date(timeIntervalSinceReferenceDate: number)) }
            if case .integer(let number) = seconds { return .date(Date(timeIntervalSinceReferenceDate: Double(number))) }
        case "NSData", "NSMutableData":
            if case .data(let bytes)? = archive.value("NS.data", of: reference) { return .data(Data(bytes)) }
        case "NSUUID":
            guard case .data(let bytes)? = archive.value("NS.uuidbytes", of: reference), let uuid = UUID(sixteenBytes: bytes) else { break }
            return .uuid(uuid)
        case "NSURL":
            guard let relative = archive.string("NS.relative", of: reference) else { break }
            let base = archive.reference("NS.base", of: reference).flatMap { archive.object($0) == nil ? nil : $0 }
            let baseURL = base.flatMap { archive.string("NS.relative", of: $0) }.flatMap { URL(string: $0) }
            guard let url = URL(string: relative, relativeTo: baseURL) else { break }
            return .url(url.absoluteURL)
        case "NSNull":
            return .null
        default:
            throw ArchiveFailure(description: "it holds \(className), which has no JSON form; convert it with a function of the app's")
        }
        throw ArchiveFailure(description: "its \(className) is damaged")
    }
}
