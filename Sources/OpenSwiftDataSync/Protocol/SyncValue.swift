import Foundation
import OpenSwiftData

/// One property's value as it travels between the engine and the server: an attribute in the form
/// its store keeps it (exact to the bit), or the synchronized identifiers of related models.
package enum SyncValue: Hashable, Sendable {
    /// An attribute's value, or `.null`.
    case value(SnapshotValue)
    /// A to-one relationship's model.
    case reference(String)
    /// A to-many relationship's models.
    case references([String])

    /// The value's form, for messages.
    package var form: String {
        switch self {
        case .value(let value):
            switch value {
            case .null: "null"
            case .integer: "integer"
            case .real: "real"
            case .date: "date"
            case .text: "text"
            case .json: "json"
            case .uuid: "uuid"
            case .bytes: "bytes"
            case .identifier, .identifiers: "identifier"
            }
        case .reference: "reference"
        case .references: "references"
        }
    }

    /// Whether the value is `.null`.
    package var isNull: Bool {
        if case .value(.null) = self { return true }
        return false
    }
}

extension SyncValue: Codable {
    private enum Form: String, CodingKey { case ref, refs }

    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .value(let value): try value.encode(to: encoder)
        case .reference(let id):
            var container = encoder.container(keyedBy: Form.self)
            try container.encode(id, forKey: .ref)
        case .references(let ids):
            var container = encoder.container(keyedBy: Form.self)
            try container.encode(ids, forKey: .refs)
        }
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Form.self)
        if let id = try container.decodeIfPresent(String.self, forKey: .ref) {
            self = .reference(id)
        } else if let ids = try container.decodeIfPresent([String].self, forKey: .refs) {
            self = .references(ids)
        } else {
            let value = try SnapshotValue(from: decoder)
            if case .identifier = value { throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "A related model is named by {\"ref\": id}")) }
            if case .identifiers = value { throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "Related models are named by {\"refs\": [id]}")) }
            self = .value(value)
        }
    }
}
