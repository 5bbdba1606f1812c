import Foundation
@testable import OpenSwiftData

/// A store file laid out as Apple's SwiftData writes one, made in the test: Core Data's bookkeeping
/// tables, a model cache archived as `NSKeyedArchiver` archives Core Data's model (its class names
/// and keys, in a binary property list written here), raw DEFLATE around it, and rows. For what no
/// fixture holds: composite attributes (a `Codable` struct's fields in columns of their own) and
/// transformable values that are keyed archives.
enum SyntheticAppleStore {
    /// An attribute's description: its name, Core Data's type code, and whether it is optional.
    static func attribute(_ name: String, _ code: Int, optional: Bool = false, transformer: String? = nil) -> ArchivedObject {
        var fields: [String: ArchivedField] = ["NSPropertyName": .text(name), "NSAttributeType": .integer(code), "NSIsOptional": .flag(optional)]
        if let transformer { fields["NSValueTransformerName"] = .text(transformer) }
        return ArchivedObject(className: "NSAttributeDescription", fields: fields)
    }

    /// A composite attribute's description with its fields.
    static func composite(_ name: String, optional: Bool = false, _ elements: [ArchivedObject]) -> ArchivedObject {
        ArchivedObject(className: "NSCompositeAttributeDescription", fields: [
            "NSPropertyName": .text(name), "NSAttributeType": .integer(2100), "NSIsOptional": .flag(optional), "NSElements": .array(elements),
        ])
    }

    /// The model cache of one entity with the given properties: a keyed archive of the model,
    /// deflated.
    static func modelCache(entity name: String, properties: [ArchivedObject]) -> [UInt8] {
        let named = properties.map { property -> (String, ArchivedObject) in
            guard case .text(let propertyName)? = property.fields["NSPropertyName"] else { return ("", property) }
            return (propertyName, property)
        }
        let entity = ArchivedObject(className: "NSEntityDescription", fields: ["NSEntityName": .text(name), "NSProperties": .dictionary(named)])
        let model = ArchivedObject(className: "NSManagedObjectModel", fields: ["NSEntities": .dictionary([(name, entity)])])
        return storedDeflate(model.archive())
    }

    /// Raw DEFLATE of `bytes` in stored (uncompressed) blocks.
    static func storedDeflate(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var start = 0
        repeat {
            let end = min(start + 65_535, bytes.count)
            let length = UInt16(end - start)
            output.append(end == bytes.count ? 1 : 0)
            output += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            output += bytes[start ..< end]
            start = end
        } while start < bytes.count
        return output
    }

    /// Writes a store at `path` with Core Data's bookkeeping, the entity's table `Z` + its name in
    /// capitals with `columns`, and `rows` (values for those columns, after `Z_PK`).
    static func write(
        at path: String, uuid: String, entity: String, properties: [ArchivedObject], columns: [String], rows: [(key: Int64, values: [StoredValue])]
    ) throws {
        let connection = try SQLiteConnection(path: path, readOnly: false, create: true)
        let metadata = BinaryPropertyListWriter.bytes(of: .dictionary(["NSStoreType": .string("SQLite"), "NSPersistenceFrameworkVersion": .integer(1_400)]))
        try connection.execute("""
            CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
            CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
            CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);
            CREATE TABLE Z\(entity.uppercased()) (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER\(columns.map { ", \($0)" }.joined()));
            """)
        _ = try connection.rows("INSERT INTO Z_PRIMARYKEY VALUES (1, ?, 0, ?)", [.text(entity), .integer(rows.map(\.key).max() ?? 0)])
        _ = try connection.rows("INSERT INTO Z_METADATA VALUES (1, ?, ?)", [.text(uuid), .blob(metadata)])
        _ = try connection.rows("INSERT INTO Z_MODELCACHE VALUES (?)", [.blob(modelCache(entity: entity, properties: properties))])
        let placeholders = columns.map { _ in ", ?" }.joined()
        for row in rows {
            _ = try connection.rows("INSERT INTO Z\(entity.uppercased()) VALUES (?, 1, 1\(placeholders))", [.integer(row.key)] + row.values)
        }
    }
}

/// A field of an archived object.
indirect enum ArchivedField {
    case text(String)
    case integer(Int)
    case flag(Bool)
    case array([ArchivedObject])
    case dictionary([(String, ArchivedObject)])
    case object(ArchivedObject)
}

/// An object as `NSKeyedArchiver` archives it: its class's name and its fields.
struct ArchivedObject {
    var className: String
    var fields: [String: ArchivedField]

    /// The keyed archive of this object as its root, as a binary property list.
    func archive() -> [UInt8] {
        var objects: [PropertyListValue] = [.string("$null")]
        var classes: [String: Int] = [:]
        func classReference(_ name: String) -> Int {
            if let known = classes[name] { return known }
            objects.append(.dictionary(["$classname": .string(name), "$classes": .array([.string(name), .string("NSObject")])]))
            classes[name] = objects.count - 1
            return objects.count - 1
        }
        func add(_ value: PropertyListValue) -> Int {
            objects.append(value)
            return objects.count - 1
        }
        func add(_ object: ArchivedObject) -> Int {
            let index = add(.null)   // placeholder: its fields come after it
            var entries: [String: PropertyListValue] = [:]
            for (key, field) in object.fields { entries[key] = value(field) }
            entries["$class"] = .uid(classReference(object.className))
            objects[index] = .dictionary(entries)
            return index
        }
        func value(_ field: ArchivedField) -> PropertyListValue {
            switch field {
            case .text(let text): return .uid(add(.string(text)))
            case .integer(let number): return .integer(Int64(number))
            case .flag(let flag): return .bool(flag)
            case .object(let object): return .uid(add(object))
            case .array(let items):
                let references = items.map { PropertyListValue.uid(add($0)) }
                return .uid(add(.dictionary(["NS.objects": .array(references), "$class": .uid(classReference("NSArray"))])))
            case .dictionary(let entries):
                let keys = entries.map { PropertyListValue.uid(add(.string($0.0))) }
                let values = entries.map { PropertyListValue.uid(add($0.1)) }
                return .uid(add(.dictionary(["NS.keys": .array(keys), "NS.objects": .array(values), "$class": .uid(classReference("NSDictionary"))])))
            }
        }
        let root = add(self)
        return BinaryPropertyListWriter.bytes(of: .dictionary([
            "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000), "$top": .dictionary(["root": .uid(root)]), "$objects": .array(objects),
        ]))
    }
}

/// Binary property lists (`bplist00`) written from ``PropertyListValue``s, UIDs included.
enum BinaryPropertyListWriter {
    static func bytes(of value: PropertyListValue) -> [UInt8] {
        var objects: [[UInt8]] = []
        func bigEndian(_ number: UInt64, _ size: Int) -> [UInt8] { (0 ..< size).reversed().map { UInt8(truncatingIfNeeded: number >> (8 * UInt64($0))) } }
        func marker(_ kind: UInt8, _ count: Int) -> [UInt8] {
            count < 15 ? [kind << 4 | UInt8(count)] : [kind << 4 | 0x0F, 0x13] + bigEndian(UInt64(count), 8)
        }
        func add(_ value: PropertyListValue) -> Int {
            var encoded: [UInt8]
            switch value {
            case .null: encoded = [0x00]
            case .bool(let flag): encoded = [flag ? 0x09 : 0x08]
            case .integer(let number): encoded = [0x13] + bigEndian(UInt64(bitPattern: number), 8)
            case .real(let number): encoded = [0x23] + bigEndian(number.bitPattern, 8)
            case .date(let date): encoded = [0x33] + bigEndian(date.timeIntervalSinceReferenceDate.bitPattern, 8)
            case .data(let bytes): encoded = marker(0x4, bytes.count) + bytes
            case .string(let text):
                if text.utf8.allSatisfy({ $0 < 0x80 }) {
                    encoded = marker(0x5, text.utf8.count) + Array(text.utf8)
                } else {
                    let units = Array(text.utf16)
                    encoded = marker(0x6, units.count) + units.flatMap { bigEndian(UInt64($0), 2) }
                }
            case .uid(let index): encoded = [0x83] + bigEndian(UInt64(index), 4)
            case .array(let items):
                let references = items.map(add)
                encoded = marker(0xA, references.count) + references.flatMap { bigEndian(UInt64($0), 4) }
            case .dictionary(let entries):
                let sorted = entries.sorted { $0.key < $1.key }
                let keys = sorted.map { add(.string($0.key)) }, values = sorted.map { add($0.value) }
                encoded = marker(0xD, keys.count) + (keys + values).flatMap { bigEndian(UInt64($0), 4) }
            }
            objects.append(encoded)
            return objects.count - 1
        }
        let top = add(value)
        var output = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(output.count)
            output += object
        }
        let table = output.count
        for offset in offsets { output += bigEndian(UInt64(offset), 8) }
        output += [0, 0, 0, 0, 0, 0, 8, 4] + bigEndian(UInt64(objects.count), 8) + bigEndian(UInt64(top), 8) + bigEndian(UInt64(table), 8)
        return output
    }
}
