import Foundation
import OpenSwiftData

/// `osd export`: every row of the chosen models, one file per model, as JSON (an array with one
/// object per line, the form `osd import` reads) or CSV.
package struct StoreExport {
    package var models: [String]?
    package var format: String
    package var directory: URL

    package init(models: [String]?, format: String, directory: URL) {
        self.models = models
        self.format = format
        self.directory = directory
    }

    /// Writes the files from the store at `store` (a file, or a PostgreSQL URL with the
    /// configuration's `name`); returns the number of rows written per model, in schema order.
    @discardableResult
    package func run(storeAt store: String, name: String = "default") throws -> [(model: String, rows: Int)] {
        guard let format = RowFormat(rawValue: format), format != .table else {
            throw ToolError("Unknown export format \(format.debugDescription); use json or csv.")
        }
        let source = try StoreArgument.open(store, name: name)
        let entities = try (models ?? source.schema.entities.map(\.name)).map { try source.schema.entity(named: $0) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // The files are written beside their places and moved there once every one is complete,
        // so a failed export leaves no partial set of files for an import to take as whole.
        let staging = directory.appendingPathComponent(".osd-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
        let written: [(String, Int)]
        do {
            written = try source.reading {
                try entities.map { entity in (entity.name, try write(entity, of: source, format: format, to: staging)) }
            }
            for entity in entities {
                let name = "\(entity.name).\(format.rawValue)"
                let target = directory.appendingPathComponent(name)
                // rename(2) puts each file in place whole, replacing an older one.
                guard rename(staging.appendingPathComponent(name).path, target.path) == 0 else {
                    throw ToolError("Cannot write \(target.path): \(String(cString: strerror(errno)))")
                }
            }
        } catch {
            // The error that stopped the export is the one to report; the scratch folder holds
            // only partial files, never taken for an export (import reads DIR's own *.json).
            try? FileManager.default.removeItem(at: staging)
            throw error
        }
        do {
            try FileManager.default.removeItem(at: staging)
        } catch {
            throw ToolError("The files are in \(directory.path), but the empty scratch folder \(staging.path) could not be removed: \(error.localizedDescription)")
        }
        return written
    }

    /// Writes one model's rows to its file in `folder`; returns how many rows it wrote.
    private func write(_ entity: StoredSchema.Entity, of source: any StoreTooling, format: RowFormat, to folder: URL) throws -> Int {
        let table = ModelTable(entity)
        let total = Int(try source.rowCount(of: table))
        let progress = Progress("Exporting \(entity.name)", total: total)
        var lines: [String] = format == .json ? ["["] : [RowFormat.csvLine(table.fieldNames)]
        var count = 0
        try source.forEachRow(of: table) { row in
            if format == .json {
                if count > 0 { lines[lines.count - 1] += "," }
                lines.append(RowFormat.jsonObject(row, of: table))
            } else {
                lines.append(RowFormat.csvLine(RowFormat.fields(row)))
            }
            count += 1
            progress.update(count)
        }
        progress.finish()
        if format == .json { lines.append("]") }
        let target = folder.appendingPathComponent("\(entity.name).\(format.rawValue)")
        do {
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: target)
        } catch {
            throw ToolError("Cannot write \(target.path): \(error.localizedDescription)")
        }
        return count
    }
}
