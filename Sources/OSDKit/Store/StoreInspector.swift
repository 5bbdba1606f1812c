import Foundation
import OpenSwiftData

/// `osd inspect`: what a store holds, from the schema it records.
package struct StoreInspector {
    /// A store file, or a PostgreSQL server's URL.
    package var path: String
    /// On PostgreSQL, the configuration's name, which names the PostgreSQL schema of its tables.
    package var name: String

    package init(path: String, name: String = "default") {
        self.path = path
        self.name = name
    }

    /// What `osd inspect --json` prints.
    package struct Report: Encodable {
        package var path: String
        /// On PostgreSQL, the PostgreSQL schema (namespace) that holds the store's tables.
        package var namespace: String?
        package var format: Int64
        /// What wrote the store, when it is not OpenSwiftData.
        package var writtenBy: String?
        package var identifier: String?
        package var schemaVersion: String?
        package var fileBytes: Int64
        package var walBytes: Int64
        package var historyTransactions: Int64
        package var relationshipsRecorded: Bool
        package var models: [Model]

        package struct Model: Encodable {
            package var name: String
            package var superclass: String?
            package var rows: Int64
            package var attributes: [Attribute]
            package var relationships: [Relationship]
            package var uniquenessConstraints: [[String]]
            package var indexes: [[String]]
        }

        package struct Attribute: Encodable {
            package var name: String
            package var type: String
            package var optional: Bool
            package var unique: Bool
            package var indexed: Bool
            package var originalName: String?
            package var externalStorage: Bool
        }

        package struct Relationship: Encodable {
            package var name: String
            package var destination: String
            package var toMany: Bool
            package var deleteRule: String
            package var inverse: String?
            package var originalName: String?
            package var storage: String
        }
    }

    package func report() throws -> Report {
        let store = try StoreArgument.open(path, name: name)
        let inspection = try store.reading { try store.inspection() }
        return Report(
            path: store.displayName, namespace: inspection.namespace, format: inspection.format, writtenBy: inspection.writtenBy,
            identifier: inspection.identifier,
            schemaVersion: store.schema.version.map { "\($0)" }, fileBytes: inspection.bytes, walBytes: inspection.walBytes,
            historyTransactions: inspection.historyTransactions, relationshipsRecorded: store.schema.isDetailed,
            models: try models(of: store.schema) { inspection.rows[$0.name] ?? 0 })
    }

    private func models(of schema: StoredSchema, rows: (StoredSchema.Entity) throws -> Int64) throws -> [Report.Model] {
        try schema.entities.map { entity in
            let single = Set(entity.uniquenessConstraints.filter { $0.count == 1 }.map { $0[0] })
            let indexed = Set(entity.indices.flatMap { $0 })
            return Report.Model(
                name: entity.name, superclass: entity.superentity,
                rows: try rows(entity),
                attributes: entity.plainAttributes.map { attribute in
                    Report.Attribute(
                        name: attribute.name, type: StoredSchema.Entity.baseType(of: attribute), optional: attribute.isOptional,
                        unique: single.contains(attribute.name), indexed: indexed.contains(attribute.name),
                        originalName: attribute.originalName, externalStorage: attribute.isExternal == true)
                },
                relationships: entity.recordedRelationships.map { relationship in
                    Report.Relationship(
                        name: relationship.name, destination: relationship.destination, toMany: relationship.isToMany,
                        deleteRule: relationship.deleteRule.rawValue, inverse: relationship.inverse,
                        originalName: relationship.originalName,
                        storage: storageDescription(relationship))
                },
                uniquenessConstraints: entity.uniquenessConstraints, indexes: entity.indices)
        }
    }

    private func storageDescription(_ relationship: StoredSchema.Relationship) -> String {
        switch relationship.storage {
        case "column": "foreign key column \(relationship.name)"
        case "inverse": "the inverse's foreign key"
        default: relationship.linkName.map { "link table \($0.table)" } ?? "pairs kept in the store's own join tables"
        }
    }

    /// The report as JSON.
    package func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(try report()), as: UTF8.self)
    }

    /// The report as text for people.
    package func text() throws -> String {
        let report = try report()
        var lines = [
            "Store      \(report.path)",
            report.writtenBy.map { "Written by \($0); read only" }
                ?? "Format     \(report.format)\(report.schemaVersion.map { ", schema version \($0)" } ?? "")",
            report.namespace == nil
                ? "Size       \(bytes(report.fileBytes)) (WAL \(bytes(report.walBytes)))"
                : "Size       \(bytes(report.fileBytes)) (tables, indexes and TOAST on the server)",
        ]
        // Apple's own history (its transaction tables) is not OpenSwiftData's and is not read.
        if report.writtenBy == nil { lines.append("History    \(report.historyTransactions) transactions") }
        if !report.relationshipsRecorded {
            lines.append("Note       this store's schema record predates relationship details; open it once with the app to record them")
        }
        for model in report.models {
            lines.append("")
            lines.append("\(model.name)\(model.superclass.map { " : \($0)" } ?? "") — \(model.rows) \(model.rows == 1 ? "row" : "rows")")
            for attribute in model.attributes {
                var traits: [String] = []
                if attribute.unique { traits.append("unique") }
                if attribute.indexed { traits.append("indexed") }
                if attribute.externalStorage { traits.append("external storage") }
                if let original = attribute.originalName { traits.append("was \(original)") }
                lines.append("  \(attribute.name): \(attribute.type)\(attribute.optional ? "?" : "")\(traits.isEmpty ? "" : "  (\(traits.joined(separator: ", ")))")")
            }
            for relationship in model.relationships {
                let type = relationship.toMany ? "[\(relationship.destination)]" : "\(relationship.destination)?"
                var traits = ["delete rule \(relationship.deleteRule)"]
                traits.append(relationship.inverse.map { "inverse \($0)" } ?? "no inverse")
                if let original = relationship.originalName { traits.append("was \(original)") }
                traits.append(relationship.storage)
                lines.append("  \(relationship.name): \(type)  (\(traits.joined(separator: ", ")))")
            }
            let compound = model.uniquenessConstraints.filter { $0.count > 1 }
            for constraint in compound { lines.append("  #Unique(\(constraint.joined(separator: ", ")))") }
            for index in model.indexes where index.count > 1 { lines.append("  #Index(\(index.joined(separator: ", ")))") }
        }
        return lines.joined(separator: "\n")
    }

    private func bytes(_ count: Int64) -> String {
        count < 1024 ? "\(count) bytes" : count < 1 << 20 ? String(format: "%.1f KiB", Double(count) / 1024) : String(format: "%.1f MiB", Double(count) / 1_048_576)
    }
}
