import Foundation

/// A schema in the `schema.json` format of the project's brief: what `osd schema` writes and the
/// generators read.
///
/// ```json
/// {"models":[{"name":"Project",
///   "attributes":[{"name":"id","type":"UUID","unique":true},{"name":"createdAt","type":"Date","default":"now"}],
///   "relationships":[{"name":"tasks","destination":"Task","toMany":true,"deleteRule":"cascade","inverse":"project"}]}]}
/// ```
///
/// Attributes take `type` (see ``AttributeType``), `optional`, `unique`, `indexed`, `default`
/// (a JSON value of the type, or `"now"` for a `Date`), `originalName` and `externalStorage`;
/// `codable` (`true`) for a `Codable` type of the app's own, and `transformer` (a class) or
/// `transformerName` (a registered name) for a `.transformable(by:)` attribute; `hasDefault`
/// says whether a non-optional attribute has an initial value that `default` does not give.
/// Relationships take `destination`, `toMany`, `deleteRule` (`nullify`, the default, `cascade`,
/// `deny`, `noAction`), `inverse` and `originalName`. A model may add `superclass`, and
/// `unique` and `indexes` for constraints over several attributes (lists of attribute names).
package struct SchemaDocument: Codable, Equatable, Sendable {
    package var models: [Model]

    package init(models: [Model]) {
        self.models = models
    }

    /// One model class.
    package struct Model: Codable, Equatable, Sendable {
        package var name: String
        package var superclass: String?
        package var attributes: [Attribute]
        package var relationships: [Relationship]
        /// Uniqueness constraints over several attributes (`#Unique`).
        package var unique: [[String]]?
        /// Indexes over several attributes (`#Index`).
        package var indexes: [[String]]?

        package init(name: String, superclass: String? = nil, attributes: [Attribute], relationships: [Relationship] = [], unique: [[String]]? = nil, indexes: [[String]]? = nil) {
            self.name = name
            self.superclass = superclass
            self.attributes = attributes
            self.relationships = relationships
            self.unique = unique
            self.indexes = indexes
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            superclass = try container.decodeIfPresent(String.self, forKey: .superclass)
            attributes = try container.decodeIfPresent([Attribute].self, forKey: .attributes) ?? []
            relationships = try container.decodeIfPresent([Relationship].self, forKey: .relationships) ?? []
            unique = try container.decodeIfPresent([[String]].self, forKey: .unique)
            indexes = try container.decodeIfPresent([[String]].self, forKey: .indexes)
        }
    }

    /// A stored property with a value type.
    package struct Attribute: Codable, Equatable, Sendable {
        package var name: String
        package var type: String
        package var optional: Bool?
        package var unique: Bool?
        package var indexed: Bool?
        package var `default`: DefaultValue?
        package var originalName: String?
        package var externalStorage: Bool?
        /// Whether `type` is a `Codable` type of the app's own (an enum, a struct), which the
        /// store keeps through its `Codable` form.
        package var codable: Bool?
        /// The value transformer class of a `.transformable(by: T.self)` attribute.
        package var transformer: String?
        /// The registered value transformer name of a `.transformable(by: "name")` attribute.
        package var transformerName: String?
        /// Whether a new model starts with a value of its own for a non-optional attribute, when
        /// `default` does not say which: a store's record tells (`osd schema`), absent when it
        /// does not. The sync server requires the value of one without in every new model.
        package var hasDefault: Bool?

        package init(name: String, type: String, optional: Bool? = nil, unique: Bool? = nil, indexed: Bool? = nil, default: DefaultValue? = nil, originalName: String? = nil, externalStorage: Bool? = nil, codable: Bool? = nil, transformer: String? = nil, transformerName: String? = nil, hasDefault: Bool? = nil) {
            self.name = name
            self.type = type
            self.optional = optional
            self.unique = unique
            self.indexed = indexed
            self.default = `default`
            self.originalName = originalName
            self.externalStorage = externalStorage
            self.codable = codable
            self.transformer = transformer
            self.transformerName = transformerName
            self.hasDefault = hasDefault
        }

        /// Whether the attribute is optional, by `optional` or a type ending in `?`.
        package var isOptional: Bool { optional == true || type.hasSuffix("?") }
        /// The type without a trailing `?`.
        package var baseType: String { type.hasSuffix("?") ? String(type.dropLast()) : type }
    }

    /// A relationship to another model.
    package struct Relationship: Codable, Equatable, Sendable {
        package var name: String
        package var destination: String
        package var toMany: Bool?
        package var deleteRule: String?
        package var inverse: String?
        package var originalName: String?

        package init(name: String, destination: String, toMany: Bool? = nil, deleteRule: String? = nil, inverse: String? = nil, originalName: String? = nil) {
            self.name = name
            self.destination = destination
            self.toMany = toMany
            self.deleteRule = deleteRule
            self.inverse = inverse
            self.originalName = originalName
        }

        package var isToMany: Bool { toMany == true }
        /// The delete rule, `nullify` when none is given.
        package var rule: String { deleteRule ?? "nullify" }
    }

    /// An attribute's default: a JSON string, number or Boolean (`"now"` for the current date).
    package enum DefaultValue: Codable, Equatable, Sendable {
        case string(String)
        case integer(Int64)
        case number(Double)
        case boolean(Bool)

        package init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            // Each kind in turn; the last attempt throws the decoder's error for a value of none.
            if let flag = try? container.decode(Bool.self) { self = .boolean(flag) }
            else if let number = try? container.decode(Int64.self) { self = .integer(number) }
            else if let number = try? container.decode(Double.self) { self = .number(number) }
            else { self = .string(try container.decode(String.self)) }
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .string(let text): try container.encode(text)
            case .integer(let number): try container.encode(number)
            case .number(let number): try container.encode(number)
            case .boolean(let flag): try container.encode(flag)
            }
        }
    }

    /// The model named `name`.
    package func model(named name: String) -> Model? { models.first { $0.name == name } }

    // MARK: Reading and writing

    /// Reads and validates the schema file at `path`.
    package static func load(from path: String) throws -> SchemaDocument {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ToolError("There is no file at \(path).")
        }
        let document: SchemaDocument
        do {
            document = try JSONDecoder().decode(SchemaDocument.self, from: data)
        } catch let error as DecodingError {
            throw ToolError("\(path) is not a schema: \(describe(error))")
        } catch {
            throw ToolError("\(path) is not a schema: \(error)")
        }
        do {
            try document.validate()
        } catch {
            throw ToolError("\(path): \(error.message)")
        }
        return document
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let components = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return components.isEmpty ? "" : " at \(components.hasPrefix(".") ? String(components.dropFirst()) : components)"
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(key.stringValue) is missing\(path(context))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return "\(context.debugDescription)\(path(context))"
        case .dataCorrupted(let context): return "the JSON cannot be read\(path(context)) (\(context.underlyingError.map { "\($0)" } ?? context.debugDescription))"
        @unknown default: return "\(error)"
        }
    }
}
