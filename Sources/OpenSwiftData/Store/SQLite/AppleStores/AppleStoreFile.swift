import Foundation

/// A store file written by Apple's Core Data or SwiftData, opened for reading without the app's
/// classes, from the model it caches (`Z_MODELCACHE`): what `osd inspect`, `schema`, `query`,
/// `export` and `verify` read such a store through. The file is never modified.
package final class AppleStoreFile {
    package let path: String
    package let model: AppleModel
    /// The store's UUID, as Core Data's `x-coredata://` object URIs name it.
    package let storeUUID: String?
    /// The Core Data framework version that last wrote the store (`NSPersistenceFrameworkVersion`).
    package let frameworkVersion: Int64?
    /// Whether Core Data mirrors the store to CloudKit (its `ANSCK…` tables are there).
    package let isMirroredToCloudKit: Bool
    let layout: AppleStoreLayout
    let connection: SQLiteConnection
    /// The conversions of transformable attributes, by `Entity.property` of the entity that
    /// declares them.
    let conversions: [String: AppleValueConversion]

    /// The newest `Z_METADATA.Z_VERSION`, and `NSStoreModelVersionHashesVersion`, this reader knows.
    static let newestMetadataVersion: Int64 = 1
    static let newestHashesVersion: Int64 = 3

    /// Whether the file at `path` is an SQLite database with Core Data's bookkeeping tables.
    package static func isAppleStore(at path: String) throws -> Bool {
        guard FileManager.default.fileExists(atPath: path), try StoreFileInspection.header(ofFileAt: path) == StoreFileInspection.sqliteHeader else {
            return false
        }
        do {
            let tables = try Self.tables(StoreFileInspection.readOnlyConnection(path: path))
            return tables["Z_METADATA"] != nil && tables["Z_PRIMARYKEY"] != nil
        } catch let error as SQLiteError {
            // An SQLite file whose tables cannot be listed: no provider can tell what it is.
            throw error.swiftDataError.adding(context: "Reading \(path)")
        }
    }

    /// Opens the store at `path` for reading.
    ///
    /// - Throws: ``SwiftDataError/storeIsCorrupt`` when its cached model or its tables cannot be
    ///   read; ``SwiftDataError/storeIsNotSQLite`` when it is not an Apple-written store.
    ///
    /// - Parameter conversions: How to read the transformable or binary attributes named by
    ///   `Entity.property`; an attribute a conversion names is read as the conversion gives it.
    package init(path: String, conversions: [String: AppleValueConversion] = [:]) throws {
        self.path = path
        do {
            connection = try StoreFileInspection.readOnlyConnection(path: path)
            let tables = try Self.tables(connection)
            guard tables["Z_METADATA"] != nil, tables["Z_PRIMARYKEY"] != nil else {
                throw SwiftDataError(.storeIsNotSQLite, reason: "\(path) is not a store Apple's Core Data or SwiftData wrote (it has no Z_METADATA and Z_PRIMARYKEY tables).")
            }
            frameworkVersion = try Self.checkVersion(connection, path: path)
            isMirroredToCloudKit = tables.keys.contains { $0.hasPrefix("ANSCK") }
            guard tables["Z_MODELCACHE"] != nil, case .blob(let cache)? = try connection.rows("SELECT Z_CONTENT FROM Z_MODELCACHE").first?.first else {
                throw SwiftDataError(.storeIsCorrupt, reason: "\(path) was written by Apple's Core Data or SwiftData but holds no model (Z_MODELCACHE is empty); it cannot be read without the app's model.")
            }
            model = try AppleModel(modelCache: cache)
            var numbers: [String: Int64] = [:]
            for row in try connection.rows("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY") {
                if case .integer(let number) = row[0], case .text(let name) = row[1] { numbers[name] = number }
            }
            storeUUID = try connection.rows("SELECT Z_UUID FROM Z_METADATA").first.flatMap { row in
                if case .text(let text) = row[0] { return text }
                return nil
            }
            var layout = try AppleStoreLayout(model: model, numbers: numbers, columns: tables)
            self.conversions = try layout.convert(conversions, path: path)
            self.layout = layout
        } catch let error as AppleModel.Failure {
            throw SwiftDataError(.storeIsCorrupt, reason: "\(path): \(error)")
        } catch let error as SQLiteError {
            throw error.swiftDataError.adding(context: "Reading \(path)")
        }
    }

    /// Throws ``SwiftDataError/storeFromNewerVersion`` for a store whose metadata says a newer
    /// Core Data wrote it in a form this reader does not know; returns the framework version that
    /// wrote it, when the metadata says.
    private static func checkVersion(_ connection: SQLiteConnection, path: String) throws -> Int64? {
        guard let row = try connection.rows("SELECT Z_VERSION, Z_PLIST FROM Z_METADATA").first else {
            throw SwiftDataError(.storeIsCorrupt, reason: "\(path) has no Core Data metadata (Z_METADATA is empty).")
        }
        if case .integer(let version) = row[0], version > newestMetadataVersion {
            throw SwiftDataError(.storeFromNewerVersion, reason: "\(path) has Core Data metadata version \(version); this version of OpenSwiftData reads up to \(newestMetadataVersion). Nothing was read.")
        }
        guard case .blob(let plist) = row[1] else { return nil }
        let metadata: PropertyListValue
        do {
            metadata = try BinaryPropertyList.parse(plist)
        } catch {
            throw SwiftDataError(.storeIsCorrupt, reason: "\(path): its Core Data metadata (Z_METADATA) is damaged: \(error).")
        }
        if let hashes = metadata["NSStoreModelVersionHashesVersion"]?.integer, hashes > newestHashesVersion {
            throw SwiftDataError(.storeFromNewerVersion, reason: "\(path) records its model with hashes of version \(hashes); this version of OpenSwiftData reads up to \(newestHashesVersion). Nothing was read.")
        }
        return metadata["NSPersistenceFrameworkVersion"]?.integer
    }

    /// The tables of the file and their columns.
    static func tables(_ connection: SQLiteConnection) throws -> [String: [String]] {
        var tables: [String: [String]] = [:]
        for row in try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table'") {
            guard case .text(let name) = row[0] else { continue }
            tables[name] = try connection.rows("SELECT name FROM pragma_table_info(?)", [.text(name)]).compactMap { column in
                if case .text(let name) = column[0] { return name }
                return nil
            }
        }
        return tables
    }

    func values(_ sql: String, _ arguments: [StoredValue] = []) throws -> [[StoredValue]] {
        do {
            return try connection.rows(sql, arguments)
        } catch let error as SQLiteError {
            throw error.swiftDataError.adding(context: "Reading \(path)")
        }
    }

    /// The layout of the entity a tool's table names.
    func entity(_ table: ModelTable) throws -> AppleStoreLayout.Entity {
        guard let entity = layout.entities[table.entity.name] else {
            throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, reason: "\(path) has no entity \(table.entity.name)")
        }
        return entity
    }

    /// A stored value of an attribute as the Swift value Apple's framework reads: dates as seconds
    /// since 2001, decimals from their number, UUIDs from 16 bytes, and external binary data from
    /// the file beside the store when the column names one.
    func decode(_ values: ArraySlice<StoredValue>, of attribute: AppleModel.Attribute, in entity: AppleStoreLayout.Entity, key: Int64) throws -> TypedValue {
        let leaves = attribute.leaves
        guard case .composite = attribute.type else {
            guard let value = values.first else { return .null }
            let decoded = try decode(value, of: attribute, in: entity.model.name)
            guard let conversion = conversion(of: attribute, in: entity), case .data(let bytes) = decoded else { return decoded }
            do {
                return try conversion.convert(bytes)
            } catch {
                throw SwiftDataError(.storeIsCorrupt, reason: "\(path): \(entity.model.name).\(attribute.name) of row \(key) cannot be converted: \(error)")
            }
        }
        var fields: [(path: [String], value: TypedValue)] = []
        for (leaf, value) in zip(leaves, values) {
            fields.append((leaf.path, try decode(value, of: leaf.attribute, in: "\(entity.model.name).\(attribute.name)")))
        }
        return .json(try AppleJSONValue.composite(fields, isOptional: attribute.isOptional).text())
    }

    /// The conversion of an attribute, named by its entity or an ancestor that declares it.
    private func conversion(of attribute: AppleModel.Attribute, in entity: AppleStoreLayout.Entity) -> AppleValueConversion? {
        guard !conversions.isEmpty else { return nil }
        return entity.lineage.lazy.compactMap { self.conversions["\($0).\(attribute.name)"] }.first
    }

    func decode(_ value: StoredValue, of attribute: AppleModel.Attribute, in entity: String) throws -> TypedValue {
        func corrupt() -> SwiftDataError {
            SwiftDataError(.storeIsCorrupt, reason: "\(path): \(entity).\(attribute.name) holds \(value), which is not a \(attribute.type.swiftType)")
        }
        if case .null = value { return .null }
        switch (attribute.type, value) {
        case (.boolean, .integer(let number)): return .bool(number != 0)
        case (.integer16, .integer(let number)), (.integer32, .integer(let number)), (.integer64, .integer(let number)): return .int(number)
        case (.double, .real(let number)), (.float, .real(let number)): return .double(number)
        case (.double, .integer(let number)), (.float, .integer(let number)): return .double(Double(number))
        case (.date, .real(let seconds)): return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case (.date, .integer(let seconds)): return .date(Date(timeIntervalSinceReferenceDate: Double(seconds)))
        case (.decimal, .integer(let number)): return .decimal(Decimal(number))
        case (.decimal, .real(let number)):
            guard let decimal = Decimal(string: "\(number)", locale: Locale(identifier: "en_US_POSIX")) else { throw corrupt() }
            return .decimal(decimal)
        case (.decimal, .text(let text)):
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { throw corrupt() }
            return .decimal(decimal)
        case (.string, .text(let text)), (.uri, .text(let text)): return .string(text)
        case (.uuid, .blob(let bytes)):
            guard let uuid = UUID(sixteenBytes: bytes) else { throw corrupt() }
            return .uuid(uuid)
        case (.binary, .blob(let bytes)) where attribute.allowsExternalStorage: return .data(try externalData(bytes, of: attribute, in: entity))
        case (.binary, .blob(let bytes)), (.transformable, .blob(let bytes)), (.composite, .blob(let bytes)), (.objectID, .blob(let bytes)),
             (.unknown, .blob(let bytes)):
            return .data(bytes)
        case (.string, .integer(let number)): return .string(String(number))
        default: throw corrupt()
        }
    }

    /// The bytes of an attribute that allows external storage: inline after a 0x01 marker, or in
    /// the file a 0x02 marker's UUID names in the store's `_EXTERNAL_DATA` folder.
    private func externalData(_ bytes: [UInt8], of attribute: AppleModel.Attribute, in entity: String) throws -> [UInt8] {
        guard let marker = bytes.first else { return bytes }
        switch marker {
        case 1: return Array(bytes.dropFirst())
        case 2:
            let name = String(decoding: bytes.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
            // The file's name is a UUID: anything else (a path that leaves the folder) is not read.
            guard UUID(uuidString: name) != nil else {
                throw SwiftDataError(.storeIsCorrupt, reason: "\(path): \(entity).\(attribute.name) names an external file that is not a UUID (\(name.prefix(80)))")
            }
            let store = URL(fileURLWithPath: path)
            let file = store.deletingLastPathComponent()
                .appendingPathComponent(".\(store.deletingPathExtension().lastPathComponent)_SUPPORT/_EXTERNAL_DATA/\(name)")
            guard let data = FileManager.default.contents(atPath: file.path) else {
                throw SwiftDataError(.storeIsCorrupt, reason: "\(path): \(entity).\(attribute.name) keeps its bytes in \(file.path), which cannot be read")
            }
            return Array(data)
        default:
            return bytes
        }
    }
}
