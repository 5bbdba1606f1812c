import OpenSwiftData

/// `osd import`: rows from the JSON files `osd export` writes (`Model.json`, one object per
/// line), into a store, in one transaction: every row lands or none does.
///
/// Every file is read and checked before anything is written; a bad file is reported by name,
/// line and field. Relationships refer to rows by the `_id` they have in the files. When the
/// imported models' tables are empty the rows keep those identifiers; otherwise they get new
/// ones and the relationships follow. The import is recorded in the store's history (author
/// `osd import`), so apps that follow the store see the new rows.
package struct StoreImport {
    package var directory: URL

    package init(directory: URL) {
        self.directory = directory
    }

    /// A row read from a file, checked against the schema.
    private struct Record {
        var line: Int
        var id: Int64
        var values: [StoredValue]
        var foreignKeys: [Int64?]
        var links: [[Int64]]
    }

    private struct ModelFile {
        var name: String
        var table: ModelTable
        var records: [Record]
    }

    /// Imports the files into the store at `store` (a file, or a PostgreSQL URL with the
    /// configuration's `name`); returns the number of rows imported per model.
    @discardableResult
    package func run(storeAt store: String, name: String = "default") throws -> [(model: String, rows: Int)] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ToolError("There is no directory at \(directory.path).")
        }
        let target = try StoreArgument.open(store, name: name, access: .writing)
        let schema = target.schema
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }.sorted()
        guard !names.isEmpty else { throw ToolError("\(directory.path) holds no .json files to import.") }
        var files: [ModelFile] = []
        for name in names {
            let model = String(name.dropLast(5))
            let entity: StoredSchema.Entity
            do { entity = try schema.entity(named: model) } catch { throw ToolError("\(name): \(error.message)") }
            let table = ModelTable(entity)
            files.append(ModelFile(name: name, table: table, records: try read(name, table: table, into: target)))
        }
        try checkReferences(files, schema: schema)
        let total = files.reduce(0) { $0 + $1.records.count }
        let progress = Progress("Importing", total: total)
        defer { progress.finish() }
        return try target.transaction {
            var preserve = try files.allSatisfy { try target.rowCount(of: $0.table) == 0 }
            if preserve {
                var keysByRoot: [String: [Int64]] = [:]
                for model in files {
                    keysByRoot[schema.root(of: model.table.entity.name), default: []] += model.records.map(\.id)
                }
                preserve = try target.canKeep(keysByRoot)
            }
            var keys: [String: [Int64: Int64]] = [:]
            var done = 0
            for model in files {
                let table = model.table
                let rows = model.records.map { (key: preserve ? Optional($0.id) : nil, values: $0.values) }
                let inserted: [Int64]
                do {
                    inserted = try target.insert(rows, into: table, root: schema.hierarchyRoot(of: table.entity.name))
                } catch let conflict as RowConflict {
                    let constraints = table.entity.uniquenessConstraints.map { $0.joined(separator: "+") }.joined(separator: " or ")
                    let place = conflict.index.map { "\(model.name) line \(model.records[$0].line)" } ?? model.name
                    let detail = conflict.reason.map { " (\($0))" } ?? ""
                    throw ToolError("\(place): another \(table.entity.name) has the same value for \(constraints)\(detail); nothing was imported.")
                }
                for (record, key) in zip(model.records, inserted) { keys[table.entity.name, default: [:]][record.id] = key }
                done += model.records.count
                progress.update(done)
            }
            var inserted: [(entity: String, keys: [Int64])] = []
            for model in files {
                let table = model.table
                var foreignKeys = Array(repeating: [(row: Int64, target: Int64)](), count: table.foreignKeys.count)
                var links = Array(repeating: [(owner: Int64, target: Int64)](), count: table.links.count)
                for record in model.records {
                    guard let newKey = keys[table.entity.name]?[record.id] else { throw ToolError("\(model.name) line \(record.line): the row was not inserted.") }
                    for (index, (relationship, target)) in zip(table.foreignKeys, record.foreignKeys).enumerated() {
                        guard let target else { continue }
                        let resolved = try resolved(target, relationship, keys: keys, schema: schema, record: record, file: model.name)
                        foreignKeys[index].append((newKey, resolved))
                    }
                    for (index, (relationship, targets)) in zip(table.links, record.links).enumerated() where relationship.linkName != nil {
                        for target in targets {
                            let resolved = try resolved(target, relationship, keys: keys, schema: schema, record: record, file: model.name)
                            links[index].append(relationship.ownsLink == false ? (resolved, newKey) : (newKey, resolved))
                        }
                    }
                }
                for (relationship, pairs) in zip(table.foreignKeys, foreignKeys) {
                    try target.setForeignKeys(pairs, of: relationship, in: table)
                }
                for (relationship, pairs) in zip(table.links, links) {
                    guard let link = relationship.linkName else { continue }
                    try target.addLinks(pairs, to: link)
                }
                inserted.append((table.entity.name, model.records.compactMap { keys[table.entity.name]?[$0.id] }))
            }
            try target.recordInsertions(inserted, author: "osd import")
            return files.map { ($0.table.entity.name, $0.records.count) }
        }
    }

    /// The new key of a relationship's target, or an error naming the line (checked before writing).
    private func resolved(_ id: Int64, _ relationship: StoredSchema.Relationship, keys: [String: [Int64: Int64]], schema: StoredSchema, record: Record, file: String) throws -> Int64 {
        guard let key = resolve(id, destination: relationship.destination, keys: keys, schema: schema) else {
            throw ToolError("\(file) line \(record.line): \(relationship.name) refers to \(relationship.destination) \(id), which is in no imported file.")
        }
        return key
    }

    /// The new key of the row a file calls `id`, among the destination model and its subclasses.
    private func resolve(_ id: Int64, destination: String, keys: [String: [Int64: Int64]], schema: StoredSchema) -> Int64? {
        for name in [destination] + schema.descendants(of: destination).map(\.name) {
            if let key = keys[name]?[id] { return key }
        }
        return nil
    }

    /// Every relationship refers to a row of the files, and identifiers are unique per hierarchy.
    private func checkReferences(_ files: [ModelFile], schema: StoredSchema) throws {
        // Identifiers are unique within a class hierarchy (a relationship to the base class holds
        // keys of any subclass's rows).
        var ids: [String: [Int64: String]] = [:]
        var keys: [String: [Int64: Int64]] = [:]
        for model in files {
            let hierarchy = schema.root(of: model.table.entity.name)
            for record in model.records {
                if let place = ids[hierarchy]?[record.id] {
                    throw ToolError("\(model.name) line \(record.line): _id \(record.id) is also \(place).")
                }
                ids[hierarchy, default: [:]][record.id] = "\(model.name) line \(record.line)"
                keys[model.table.entity.name, default: [:]][record.id] = record.id
            }
        }
        for model in files {
            let table = model.table
            for record in model.records {
                for (relationship, target) in zip(table.foreignKeys, record.foreignKeys) {
                    if let target, resolve(target, destination: relationship.destination, keys: keys, schema: schema) == nil {
                        throw ToolError("\(model.name) line \(record.line): \(relationship.name) refers to \(relationship.destination) \(target), which is in no imported file.")
                    }
                }
                for (relationship, targets) in zip(table.links, record.links) {
                    for target in targets where resolve(target, destination: relationship.destination, keys: keys, schema: schema) == nil {
                        throw ToolError("\(model.name) line \(record.line): \(relationship.name) refers to \(relationship.destination) \(target), which is in no imported file.")
                    }
                }
            }
        }
    }

    /// Reads and checks one file.
    private func read(_ name: String, table: ModelTable, into target: any StoreTooling) throws -> [Record] {
        let url = directory.appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path), String(validating: data, as: UTF8.self) != nil else {
            throw ToolError("\(name): cannot be read as UTF-8 text.")
        }
        let bytes = [UInt8](data)
        var records: [Record] = []
        let entity = table.entity
        let known = Set(table.fieldNames)
        var lineNumber = 0
        var next = bytes.startIndex
        while next < bytes.endIndex {
            lineNumber += 1
            let end = bytes[next...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
            var line = bytes[next..<end]
            next = end + 1
            while let first = line.first, [0x20, 0x09, 0x0D].contains(first) { line.removeFirst() }
            while let last = line.last, [0x20, 0x09, 0x0D].contains(last) { line.removeLast() }
            if line.isEmpty || line.elementsEqual([UInt8(ascii: "[")]) || line.elementsEqual([UInt8(ascii: "]")]) { continue }
            if line.last == UInt8(ascii: ",") { line.removeLast() }
            func fail(_ message: String) -> ToolError { ToolError("\(name) line \(lineNumber): \(message); nothing was imported.") }
            guard case .object(let object)? = JSONValue(parsing: line) else {
                throw fail("not a JSON object (osd import reads one object per line, as osd export writes)")
            }
            guard case .integer(let id)? = object["_id"] else { throw fail("_id is missing or not an integer") }
            var record = Record(line: lineNumber, id: id, values: [], foreignKeys: [], links: [])
            if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
                let other = entity.recordedRelationships.contains { $0.name == unknown }
                throw fail(other
                    ? "\(unknown) is the inverse side of a relationship; set it from the other model's file"
                    : "\(entity.name) has no field \(unknown)\(suggestion(for: unknown, among: Array(known)))")
            }
            for attribute in table.attributes {
                let value = object[attribute.name] ?? .null
                if value == .null {
                    guard attribute.isOptional else { throw fail("\(attribute.name) is missing; \(entity.name).\(attribute.name) is not optional") }
                    record.values.append(.null)
                    continue
                }
                if let expected = value.mismatch(for: attribute) { throw fail("\(attribute.name) must be \(expected)") }
                guard let text = value.scalarText else { throw fail("\(attribute.name) must be a single value") }
                let stored: StoredValue
                do {
                    stored = attribute.encode(try ValueText.value(text, for: attribute))
                } catch {
                    throw fail("\(attribute.name): \(error.message)")
                }
                if let problem = target.problem(storing: stored) { throw fail("\(attribute.name): \(problem)") }
                record.values.append(stored)
            }
            for relationship in table.foreignKeys {
                switch object[relationship.name] ?? .null {
                case .null: record.foreignKeys.append(nil)
                case .integer(let key): record.foreignKeys.append(key)
                default: throw fail("\(relationship.name) must be the _id of a \(relationship.destination) or null")
                }
            }
            for relationship in table.links {
                switch object[relationship.name] ?? .array([]) {
                case .array(let elements):
                    var keys: [Int64] = []
                    for element in elements {
                        guard case .integer(let key) = element else { throw fail("\(relationship.name) must be a list of \(relationship.destination) _id numbers") }
                        keys.append(key)
                    }
                    record.links.append(keys)
                default: throw fail("\(relationship.name) must be a list of \(relationship.destination) _id numbers")
                }
            }
            records.append(record)
        }
        return records
    }
}
