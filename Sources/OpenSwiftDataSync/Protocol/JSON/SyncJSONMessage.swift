import Foundation
import OpenSwiftData

/// A message of the protocol that writes its JSON itself (``SyncJSONWriter``).
package protocol SyncJSONWritable {
    /// Writes the message's JSON.
    func write(json writer: inout SyncJSONWriter) throws(SyncJSONError)
}

/// A message of the protocol that reads and writes its JSON itself (``SyncJSONReader``,
/// ``SyncJSONWriter``): the same JSON as its `Codable` form, which stays for everything else.
package protocol SyncJSONMessage: SyncJSONWritable {
    /// Reads the message from its JSON.
    init(json reader: inout SyncJSONReader) throws(SyncJSONError)
}

extension SyncJSONMessage {
    /// Reads the message from a whole JSON document.
    package init(jsonData data: some Collection<UInt8>) throws(SyncJSONError) {
        var reader = SyncJSONReader(data)
        self = try Self(json: &reader)
        try reader.end()
    }
}

extension SyncJSONWritable {
    /// The message's JSON document.
    package func jsonData() throws(SyncJSONError) -> Data {
        var writer = SyncJSONWriter()
        try write(json: &writer)
        return writer.data
    }
}

/// A member a message requires, or the error naming it.
private func required<T>(_ value: T?, _ key: String, of message: String) throws(SyncJSONError) -> T {
    guard let value else { throw SyncJSONError(path: [], message: "\(message) lacks \(key)") }
    return value
}

// MARK: Values

extension SyncClock: SyncJSONMessage {
    package init(json reader: inout SyncJSONReader) throws(SyncJSONError) {
        var time: Int64?, counter: Int64?, client: String?
        try reader.readObject { reader, key throws(SyncJSONError) in
            switch key {
            case "t": time = try reader.readInt64()
            case "c": counter = try reader.readInt64()
            case "n": client = try reader.readString()
            default: try reader.skipValue()
            }
        }
        self.init(time: try required(time, "t", of: "a clock"), counter: try required(counter, "c", of: "a clock"), client: try required(client, "n", of: "a clock"))
    }

    package func write(json writer: inout SyncJSONWriter) {
        writer.object { writer in
            writer.key("t")
            writer.integer(time)
            writer.key("c")
            writer.integer(counter)
            writer.key("n")
            writer.string(client)
        }
    }
}

extension SyncValue: SyncJSONMessage {
    package init(json reader: inout SyncJSONReader) throws(SyncJSONError) {
        var forms: [SyncValue] = []
        try reader.readObject { reader, key throws(SyncJSONError) in
            switch key {
            case "ref": forms.append(.reference(try reader.readString()))
            case "refs":
                var ids: [String] = []
                try reader.readArray { reader throws(SyncJSONError) in ids.append(try reader.readString()) }
                forms.append(.references(ids))
            case "null":
                try reader.skipValue()
                forms.append(.value(.null))
            case "integer": forms.append(.value(.integer(try reader.readInt64())))
            case "real": forms.append(.value(.real(try reader.readDouble())))
            case "realBits": forms.append(.value(.real(Double(bitPattern: try reader.readUInt64()))))
            case "date": forms.append(.value(.date(Date(timeIntervalSinceReferenceDate: try reader.readDouble()))))
            case "dateBits": forms.append(.value(.date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try reader.readUInt64())))))
            case "text": forms.append(.value(.text(try reader.readString())))
            case "json": forms.append(.value(.json(try reader.readString())))
            case "uuid":
                let text = try reader.readString()
                guard let uuid = UUID(uuidString: text) else { throw reader.problem("a UUID, not \(text)") }
                forms.append(.value(.uuid(uuid)))
            case "bytes":
                let text = try reader.readString()
                guard let data = Data(base64Encoded: text) else { throw reader.problem("Base64 data") }
                forms.append(.value(.bytes(data)))
            case "identifier", "identifiers":
                throw SyncJSONError(path: [], message: "related models are named by {\"ref\": id} or {\"refs\": [id]}")
            default:
                try reader.skipValue()
            }
        }
        guard forms.count == 1, let form = forms.first else {
            throw SyncJSONError(path: [], message: "a value is an object with one key that names its form, such as {\"text\": \"Paris\"}")
        }
        self = form
    }

    package func write(json writer: inout SyncJSONWriter) throws(SyncJSONError) {
        try writer.object { writer throws(SyncJSONError) in
            switch self {
            case .reference(let id):
                writer.key("ref")
                writer.string(id)
            case .references(let ids):
                writer.key("refs")
                writer.array { writer in
                    for id in ids {
                        writer.element()
                        writer.string(id)
                    }
                }
            case .value(let value):
                switch value {
                case .null:
                    writer.key("null")
                    writer.bool(true)
                case .integer(let number):
                    writer.key("integer")
                    writer.integer(number)
                case .real(let number) where number.isFinite:
                    writer.key("real")
                    writer.double(number)
                case .real(let number):
                    // NaN and the infinities, which JSON has no numbers for.
                    writer.key("realBits")
                    writer.integer(number.bitPattern)
                case .date(let date) where date.timeIntervalSinceReferenceDate.isFinite:
                    writer.key("date")
                    writer.double(date.timeIntervalSinceReferenceDate)
                case .date(let date):
                    // A date computed from NaN or an infinity, which JSON has no numbers for.
                    writer.key("dateBits")
                    writer.integer(date.timeIntervalSinceReferenceDate.bitPattern)
                case .text(let text):
                    writer.key("text")
                    writer.string(text)
                case .json(let text):
                    writer.key("json")
                    writer.string(text)
                case .uuid(let uuid):
                    writer.key("uuid")
                    writer.string(uuid.uuidString)
                case .bytes(let data):
                    writer.key("bytes")
                    writer.string(data.base64EncodedString())
                case .identifier, .identifiers:
                    throw SyncJSONError(path: [], message: "a value names related models by store identifier, which only this device knows")
                }
            }
        }
    }
}

// MARK: Rows and changes

extension SyncJSONReader {
    /// Reads an object of values by property name.
    package mutating func readValues() throws(SyncJSONError) -> [String: SyncValue] {
        try readDictionary { reader throws(SyncJSONError) in try SyncValue(json: &reader) }
    }

    /// Reads an object of clocks by property name.
    package mutating func readClocks() throws(SyncJSONError) -> [String: SyncClock] {
        try readDictionary { reader throws(SyncJSONError) in try SyncClock(json: &reader) }
    }

    /// Reads an array of messages.
    package mutating func readList<Element: SyncJSONMessage>(of type: Element.Type) throws(SyncJSONError) -> [Element] {
        var list: [Element] = []
        try readArray { reader throws(SyncJSONError) in list.append(try Element(json: &reader)) }
        return list
    }
}

extension SyncJSONWriter {
    /// Writes values by property name, in the order of their names.
    package mutating func values(_ values: [String: SyncValue]) throws(SyncJSONError) {
        try dictionary(values) { writer, value throws(SyncJSONError) in try value.write(json: &writer) }
    }

    /// Writes clocks by property name, in the order of their names.
    package mutating func clocks(_ clocks: [String: SyncClock]) {
        dictionary(clocks) { writer, clock in clock.write(json: &writer) }
    }

    /// Writes an array of messages.
    package mutating func list(_ list: [some SyncJSONWritable]) throws(SyncJSONError) {
        try array { writer throws(SyncJSONError) in
            for element in list {
                writer.element()
                try element.write(json: &writer)
            }
        }
    }
}

/// The members a change and a row both have: which model, whether deleted, its values and clocks.
private struct RowMembers {
    var entity: String?
    var id: String?
    var deleted: Bool?
    var values: [String: SyncValue]?
    var clocks: [String: SyncClock]?

    /// Reads the member named `key` when it is one of these; returns whether it was.
    mutating func read(_ key: String, from reader: inout SyncJSONReader) throws(SyncJSONError) -> Bool {
        switch key {
        case "entity": entity = try reader.readString()
        case "id": id = try reader.readString()
        case "deleted": deleted = try reader.readBool()
        case "values": values = try reader.readValues()
        case "clocks": clocks = try reader.readClocks()
        default: return false
        }
        return true
    }

    /// The members, each required, or the error naming the first missing from `message`.
    func complete(_ message: String) throws(SyncJSONError) -> (entity: String, id: String, deleted: Bool, values: [String: SyncValue], clocks: [String: SyncClock]) {
        (try required(entity, "entity", of: message), try required(id, "id", of: message), try required(deleted, "deleted", of: message),
         try required(values, "values", of: message), try required(clocks, "clocks", of: message))
    }

    /// Writes the members inside an object being written; `values` and `clocks` write those two.
    static func write(
        entity: String, id: String, deleted: Bool, json writer: inout SyncJSONWriter,
        values: (inout SyncJSONWriter) throws(SyncJSONError) -> Void, clocks: (inout SyncJSONWriter) -> Void
    ) throws(SyncJSONError) {
        writer.key("entity")
        writer.string(entity)
        writer.key("id")
        writer.string(id)
        writer.key("deleted")
        writer.bool(deleted)
        writer.key("values")
        try values(&writer)
        writer.key("clocks")
        clocks(&writer)
    }
}

extension SyncChange: SyncJSONMessage {
    package init(json reader: inout SyncJSONReader) throws(SyncJSONError) {
        var members = RowMembers()
        var isNew: Bool?
        var insertedIn: Int64?
        var bases: [String: SyncClock] = [:]
        try reader.readObject { reader, key throws(SyncJSONError) in
            if try members.read(key, from: &reader) { return }
            switch key {
            case "isNew": isNew = try reader.readNull() ? nil : reader.readBool()
            case "insertedIn": insertedIn = try reader.readNull() ? nil : reader.readInt64()
            case "bases": bases = try reader.readClocks()
            default: try reader.skipValue()
            }
        }
        let row = try members.complete("a change")
        self.init(entity: row.entity, id: row.id, deleted: row.deleted, values: row.values, clocks: row.clocks, isNew: isNew, insertedIn: insertedIn, bases: bases)
    }

    package func write(json writer: inout SyncJSONWriter) throws(SyncJSONError) {
        try writer.object { writer throws(SyncJSONError) in
            try RowMembers.write(entity: entity, id: id, deleted: deleted, json: &writer) { writer throws(SyncJSONError) in
                try writer.values(values)
            } clocks: { writer in
                writer.clocks(clocks)
            }
            if let isNew {
                writer.key("isNew")
                writer.bool(isNew)
            }
            if let insertedIn {
                writer.key("insertedIn")
                writer.integer(insertedIn)
            }
            if !bases.isEmpty {
                writer.key("bases")
                writer.clocks(bases)
            }
        }
    }
}

extension SyncRow: SyncJSONMessage {
    package init(json reader: inout SyncJSONReader) throws(SyncJSONError) {
        var members = RowMembers()
        var version: Int64?
        try reader.readObject { reader, key throws(SyncJSONError) in
            if try members.read(key, from: &reader) { return }
            if key == "version" { version = try reader.readInt64() } else { try reader.skipValue() }
        }
        let row = try members.complete("a row")
        self.init(entity: row.entity, id: row.id, deleted: row.deleted, values: row.values, clocks: row.clocks, version: try required(version, "version", of: "a row"))
    }

    package func write(json writer: inout SyncJSONWriter) throws(SyncJSONError) {
        try SyncRow.write(entity: entity, id: id, deleted: deleted, version: version, json: &writer) { writer throws(SyncJSONError) in
            try writer.values(values)
        } clocks: { writer in
            writer.clocks(clocks)
        }
    }

    /// Writes a row whose values and clocks `values` and `clocks` write: a server passes the JSON
    /// it stored them as through unread.
    package static func write(
        entity: String, id: String, deleted: Bool, version: Int64, json writer: inout SyncJSONWriter,
        values: (inout SyncJSONWriter) throws(SyncJSONError) -> Void, clocks: (inout SyncJSONWriter) -> Void
    ) throws(SyncJSONError) {
        try writer.object { writer throws(SyncJSONError) in
            try RowMembers.write(entity: entity, id: id, deleted: deleted, json: &writer, values: values, clocks: clocks)
            writer.key("version")
            writer.integer(version)
        }
    }
}

extension SyncRefusal: SyncJSONMessage {
    package init(json reader: inout SyncJSONReader) throws(SyncJSONError) {
        var entity: String?, id: String?, reason: String?
        try reader.readObject { reader, key throws(SyncJSONError) in
            switch key {
            case "entity": entity = try reader.readString()
            case "id": id = try reader.readString()
            case "reason": reason = try reader.readString()
            default: try reader.skipValue()
            }
        }
        self.init(
            entity: try required(entity, "entity", of: "a refusal"), id: try required(id, "id", of: "a refusal"),
            reason: try required(reason, "reason", of: "a refusal"))
    }

    package func write(json writer: inout SyncJSONWriter) {
        writer.object { writer in
            writer.key("entity")
            writer.string(entity)
            writer.key("id")
            writer.string(id)
            writer.key("reason")
            writer.string(reason)
        }
    }
}

extension SyncConflict: SyncJSONMessage {
    package init(json reader: inout SyncJSONReader) throws(SyncJSONError) {
        var entity: String?, id: String?, property: String?, losing: SyncClock?, winning: SyncClock?
        try reader.readObject { reader, key throws(SyncJSONError) in
            switch key {
            case "entity": entity = try reader.readString()
            case "id": id = try reader.readString()
            case "property": property = try reader.readString()
            case "losing": losing = try SyncClock(json: &reader)
            case "winning": winning = try SyncClock(json: &reader)
            default: try reader.skipValue()
            }
        }
        self.init(
            entity: try required(entity, "entity", of: "a conflict"), id: try required(id, "id", of: "a conflict"),
            property: try required(property, "property", of: "a conflict"), losing: try required(losing, "losing", of: "a conflict"),
            winning: try required(winning, "winning", of: "a conflict"))
    }

    package func write(json writer: inout SyncJSONWriter) {
        writer.object { writer in
            writer.key("entity")
            writer.string(entity)
            writer.key("id")
            writer.string(id)
            writer.key("property")
            writer.string(property)
            writer.key("losing")
            losing.write(json: &writer)
            writer.key("winning")
            winning.write(json: &writer)
        }
    }
}

// MARK: Requests and responses

extension SyncProblem: SyncJSONWritable {
    package func write(json writer: inout SyncJSONWriter) {
        writer.object { writer in
            writer.key("code")
            writer.string(code)
            writer.key("message")
            writer.string(message)
        }
    }
}

extension PushRequest: SyncJSONMessage {
    package init(json reader: inout SyncJSONReader) throws(SyncJSONError) {
        var client: String?, sequence: Int64?, changes: [SyncChange]?, cursor: Int64?, part: Int64?, parts: Int64?
        try reader.readObject { reader, key throws(SyncJSONError) in
            switch key {
            case "client": client = try reader.readString()
            case "sequence": sequence = try reader.readInt64()
            case "changes": changes = try reader.readList(of: SyncChange.self)
            case "cursor": cursor = try reader.readNull() ? nil : reader.readInt64()
            case "part": part = try reader.readNull() ? nil : reader.readInt64()
            case "parts": parts = try reader.readNull() ? nil : reader.readInt64()
            default: try reader.skipValue()
            }
        }
        self.init(
            client: try required(client, "client", of: "a push"), sequence: try required(sequence, "sequence", of: "a push"),
            changes: try required(changes, "changes", of: "a push"), cursor: cursor,
            part: try part.map { value throws(SyncJSONError) in try Self.count(value, "part") },
            parts: try parts.map { value throws(SyncJSONError) in try Self.count(value, "parts") })
    }

    /// A part number or count, which fits an `Int` and is not negative.
    private static func count(_ value: Int64, _ key: String) throws(SyncJSONError) -> Int {
        guard value >= 0, value <= Int64(Int32.max) else {
            throw SyncJSONError(path: [key], message: "a push's \(key) is \(value), not a count")
        }
        return Int(value)
    }

    package func write(json writer: inout SyncJSONWriter) throws(SyncJSONError) {
        try writer.object { writer throws(SyncJSONError) in
            writer.key("client")
            writer.string(client)
            writer.key("sequence")
            writer.integer(sequence)
            writer.key("changes")
            try writer.list(changes)
            if let cursor {
                writer.key("cursor")
                writer.integer(cursor)
            }
            if let part, let parts {
                writer.key("part")
                writer.integer(Int64(part))
                writer.key("parts")
                writer.integer(Int64(parts))
            }
        }
    }
}

extension PushResponse: SyncJSONMessage {
    package init(json reader: inout SyncJSONReader) throws(SyncJSONError) {
        var sequence: Int64?, corrections: [SyncRow]?, conflicts: [SyncConflict]?, refusals: [SyncRefusal] = []
        try reader.readObject { reader, key throws(SyncJSONError) in
            switch key {
            case "sequence": sequence = try reader.readInt64()
            case "corrections": corrections = try reader.readList(of: SyncRow.self)
            case "conflicts": conflicts = try reader.readList(of: SyncConflict.self)
            // Absent from the answers of servers that predate rules.
            case "refusals": refusals = try reader.readList(of: SyncRefusal.self)
            default: try reader.skipValue()
            }
        }
        self.init(
            sequence: try required(sequence, "sequence", of: "a push's answer"), corrections: try required(corrections, "corrections", of: "a push's answer"),
            conflicts: try required(conflicts, "conflicts", of: "a push's answer"), refusals: refusals)
    }

    package func write(json writer: inout SyncJSONWriter) throws(SyncJSONError) {
        try writer.object { writer throws(SyncJSONError) in
            writer.key("sequence")
            writer.integer(sequence)
            writer.key("corrections")
            try writer.list(corrections)
            writer.key("conflicts")
            try writer.list(conflicts)
            if !refusals.isEmpty {
                writer.key("refusals")
                try writer.list(refusals)
            }
        }
    }
}

extension PullResponse: SyncJSONMessage {
    package init(json reader: inout SyncJSONReader) throws(SyncJSONError) {
        var rows: [SyncRow]?, cursor: Int64?, upToDate: Bool?, reset: Bool?, trimmedThrough: Int64?
        try reader.readObject { reader, key throws(SyncJSONError) in
            switch key {
            case "rows": rows = try reader.readList(of: SyncRow.self)
            case "cursor": cursor = try reader.readInt64()
            case "upToDate": upToDate = try reader.readBool()
            case "reset": reset = try reader.readNull() ? nil : reader.readBool()
            case "trimmedThrough": trimmedThrough = try reader.readNull() ? nil : reader.readInt64()
            default: try reader.skipValue()
            }
        }
        self.init(
            rows: try required(rows, "rows", of: "a pull's answer"), cursor: try required(cursor, "cursor", of: "a pull's answer"),
            upToDate: try required(upToDate, "upToDate", of: "a pull's answer"), reset: reset, trimmedThrough: trimmedThrough)
    }

    package func write(json writer: inout SyncJSONWriter) throws(SyncJSONError) {
        try PullResponse.write(cursor: cursor, upToDate: upToDate, reset: reset, trimmedThrough: trimmedThrough, json: &writer) { writer throws(SyncJSONError) in
            try writer.list(rows)
        }
    }

    /// Writes a pull's answer whose rows `rows` writes.
    package static func write(
        cursor: Int64, upToDate: Bool, reset: Bool?, trimmedThrough: Int64? = nil, json writer: inout SyncJSONWriter,
        rows: (inout SyncJSONWriter) throws(SyncJSONError) -> Void
    ) throws(SyncJSONError) {
        try writer.object { writer throws(SyncJSONError) in
            writer.key("rows")
            try rows(&writer)
            writer.key("cursor")
            writer.integer(cursor)
            writer.key("upToDate")
            writer.bool(upToDate)
            if let reset {
                writer.key("reset")
                writer.bool(reset)
            }
            if let trimmedThrough {
                writer.key("trimmedThrough")
                writer.integer(trimmedThrough)
            }
        }
    }
}
