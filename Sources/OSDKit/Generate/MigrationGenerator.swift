/// `osd generate migration`: two `VersionedSchema`s and a `SchemaMigrationPlan` between them.
///
/// The stage is lightweight when every change is one the store makes on its own (a model added or
/// removed, a property added that is optional or has a default, a property removed, a rename
/// given as `originalName` in the new schema, a relationship added or removed). Otherwise it is a
/// custom stage whose `willMigrate`/`didMigrate` placeholders carry a comment for each change that
/// needs code: a type change, a new required property without a default, a property that stops
/// being optional, a new uniqueness constraint over existing data, a relationship that changes
/// between to-one and to-many.
package struct MigrationGenerator {
    package var old: SchemaDocument
    package var new: SchemaDocument
    package var oldName = "SchemaV1"
    package var newName = "SchemaV2"
    package var planName = "MigrationPlan"
    package var oldVersion = "1, 0, 0"
    package var newVersion = "2, 0, 0"
    package var module = "OpenSwiftData"

    package init(old: SchemaDocument, new: SchemaDocument) {
        self.old = old
        self.new = new
    }

    /// What changed between the schemas, each as a sentence, split into the changes a lightweight
    /// stage makes and the ones that need code.
    package func changes() -> (lightweight: [String], needsCode: [String]) {
        var lightweight: [String] = []
        var needsCode: [String] = []
        for model in new.models where old.model(named: model.name) == nil {
            lightweight.append("model \(model.name) is new")
        }
        for model in old.models where new.model(named: model.name) == nil {
            lightweight.append("model \(model.name) is removed")
        }
        for model in new.models {
            guard let previous = old.model(named: model.name) else { continue }
            var matched: Set<String> = []
            for attribute in model.attributes {
                let field = "\(model.name).\(attribute.name)"
                let source = previous.attributes.first { $0.name == attribute.name }
                    ?? attribute.originalName.flatMap { original in previous.attributes.first { $0.name == original } }
                guard let source else {
                    if attribute.isOptional || attribute.default != nil {
                        lightweight.append("\(field) is new")
                    } else {
                        needsCode.append("\(field) is new, required and has no default: give it a default in the new schema, or set it for every existing \(model.name) in didMigrate")
                    }
                    continue
                }
                matched.insert(source.name)
                if source.name != attribute.name { lightweight.append("\(model.name).\(source.name) is renamed \(attribute.name)") }
                if source.baseType != attribute.baseType {
                    needsCode.append("\(field) changes type from \(source.baseType) to \(attribute.baseType): read the old values in willMigrate and write the new ones in didMigrate")
                } else if source.isOptional && !attribute.isOptional && attribute.default == nil {
                    needsCode.append("\(field) stops being optional: give every existing \(model.name) a value in willMigrate")
                } else if source.isOptional != attribute.isOptional {
                    lightweight.append("\(field) becomes \(attribute.isOptional ? "optional" : "required, with its default")")
                }
                if attribute.unique == true && source.unique != true {
                    needsCode.append("\(field) becomes unique: remove or merge duplicates in willMigrate")
                }
            }
            for attribute in previous.attributes where !matched.contains(attribute.name) {
                lightweight.append("\(model.name).\(attribute.name) is removed")
            }
            for constraint in model.unique ?? [] where !(previous.unique ?? []).contains(constraint) {
                needsCode.append("\(model.name) gains the uniqueness constraint \(constraint.joined(separator: " + ")): remove or merge duplicates in willMigrate")
            }
            for relationship in model.relationships {
                let field = "\(model.name).\(relationship.name)"
                let source = previous.relationships.first { $0.name == relationship.name }
                    ?? relationship.originalName.flatMap { original in previous.relationships.first { $0.name == original } }
                guard let source else {
                    lightweight.append("\(field) is new")
                    continue
                }
                if source.name != relationship.name { lightweight.append("\(model.name).\(source.name) is renamed \(relationship.name)") }
                if source.isToMany != relationship.isToMany {
                    needsCode.append("\(field) changes from \(source.isToMany ? "to-many to to-one" : "to-one to to-many"): keep the related models in willMigrate and relate them again in didMigrate")
                } else if source.destination != relationship.destination {
                    needsCode.append("\(field) now points to \(relationship.destination) instead of \(source.destination): relate the models again in didMigrate")
                }
            }
            for relationship in previous.relationships where !model.relationships.contains(where: { $0.name == relationship.name || $0.originalName == relationship.name }) {
                lightweight.append("\(model.name).\(relationship.name) is removed")
            }
        }
        return (lightweight, needsCode)
    }

    /// The whole file.
    package func source(oldFile: String, newFile: String) -> String {
        let (lightweight, needsCode) = changes()
        var lines = [
            "// Generated by `osd generate migration` from \(oldFile) to \(newFile). Edit the custom stage's",
            "// closures, if any; regenerate the schemas rather than edit them.",
            "",
            "import Foundation",
            "import \(module)",
            "",
        ]
        lines += versionedSchema(name: oldName, version: oldVersion, schema: old)
        lines.append("")
        lines += versionedSchema(name: newName, version: newVersion, schema: new)
        lines.append("")
        lines.append("/// Migrates stores from \(oldName) to \(newName).")
        lines.append("enum \(planName): SchemaMigrationPlan {")
        lines.append("    static var schemas: [any VersionedSchema.Type] { [\(oldName).self, \(newName).self] }")
        lines.append("")
        lines.append("    static var stages: [MigrationStage] { [migrate\(oldName)To\(newName)] }")
        lines.append("")
        let changeLines = (lightweight.map { "    // - \($0)" })
        if needsCode.isEmpty {
            lines.append("    /// A lightweight stage: the store makes every change on its own.")
            lines += changeLines
            lines.append("    static var migrate\(oldName)To\(newName): MigrationStage {")
            lines.append("        .lightweight(fromVersion: \(oldName).self, toVersion: \(newName).self)")
            lines.append("    }")
        } else {
            lines.append("    /// A custom stage: some changes need code (marked TODO below).")
            lines += changeLines
            lines.append("    static var migrate\(oldName)To\(newName): MigrationStage {")
            lines.append("        .custom(")
            lines.append("            fromVersion: \(oldName).self,")
            lines.append("            toVersion: \(newName).self,")
            lines.append("            willMigrate: { context in")
            lines.append("                // Runs on the old models (\(oldName)) before the store changes.")
            for change in needsCode { lines.append("                // TODO: \(change)") }
            lines.append("                try context.save()")
            lines.append("            },")
            lines.append("            didMigrate: { context in")
            lines.append("                // Runs on the new models (\(newName)) after the store changed.")
            lines.append("                try context.save()")
            lines.append("            }")
            lines.append("        )")
            lines.append("    }")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    private func versionedSchema(name: String, version: String, schema: SchemaDocument) -> [String] {
        var lines = [
            "enum \(name): VersionedSchema {",
            "    static var versionIdentifier: Schema.Version { Schema.Version(\(version)) }",
            "    static var models: [any PersistentModel.Type] { [\(schema.models.map { "\($0.name).self" }.joined(separator: ", "))] }",
            "",
        ]
        lines += ModelsGenerator(schema: schema, module: module).classes(indent: "    ").joined(separator: "\n\n").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.append("}")
        return lines
    }
}
