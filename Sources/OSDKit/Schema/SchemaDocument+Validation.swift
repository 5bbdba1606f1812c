import OpenSwiftData

extension SchemaDocument {
    /// Checks that the schema describes models that can exist: known types, unique names,
    /// destinations that exist, inverses that point back, defaults of the right type, constraints
    /// over existing attributes. The error names the model and the field.
    package func validate() throws(ToolError) {
        guard !models.isEmpty else { throw ToolError("the schema has no models") }
        var seen: Set<String> = []
        for model in models {
            guard AttributeType.isIdentifier(model.name) else { throw ToolError("\(model.name.debugDescription) is not a valid model name") }
            guard seen.insert(model.name).inserted else { throw ToolError("model \(model.name) appears twice") }
        }
        for model in models {
            var names: Set<String> = []
            for attribute in model.attributes {
                let field = "\(model.name).\(attribute.name)"
                guard AttributeType.isIdentifier(attribute.name) else { throw ToolError("\(field): not a valid property name") }
                guard names.insert(attribute.name).inserted else { throw ToolError("\(field) appears twice") }
                try checkType(of: attribute, field: field)
                if let original = attribute.originalName, !AttributeType.isIdentifier(original) {
                    throw ToolError("\(field): originalName \(original.debugDescription) is not a valid property name")
                }
            }
            for relationship in model.relationships {
                let field = "\(model.name).\(relationship.name)"
                guard AttributeType.isIdentifier(relationship.name) else { throw ToolError("\(field): not a valid property name") }
                guard names.insert(relationship.name).inserted else { throw ToolError("\(field) appears twice") }
                guard let destination = self.model(named: relationship.destination) else {
                    throw ToolError("\(field) points to \(relationship.destination), which is not a model of the schema")
                }
                guard ["nullify", "cascade", "deny", "noAction"].contains(relationship.rule) else {
                    throw ToolError("\(field) has delete rule \(relationship.rule.debugDescription); use nullify, cascade, deny or noAction")
                }
                if let inverseName = relationship.inverse {
                    guard let inverse = destination.relationships.first(where: { $0.name == inverseName }) else {
                        throw ToolError("\(field) names inverse \(inverseName), which \(destination.name) does not have")
                    }
                    guard inverse.destination == model.name else {
                        throw ToolError("\(field) names inverse \(destination.name).\(inverseName), which points to \(inverse.destination), not \(model.name)")
                    }
                    if let back = inverse.inverse, back != relationship.name {
                        throw ToolError("\(field) and \(destination.name).\(inverseName) do not name each other as inverses (\(destination.name).\(inverseName) names \(back))")
                    }
                }
            }
            let attributeNames = Set(model.attributes.map(\.name))
            for (label, lists) in [("unique", model.unique ?? []), ("indexes", model.indexes ?? [])] {
                for list in lists {
                    guard !list.isEmpty else { throw ToolError("\(model.name).\(label) has an empty list") }
                    if let missing = list.first(where: { !attributeNames.contains($0) }) {
                        throw ToolError("\(model.name).\(label) names \(missing), which is not an attribute of \(model.name)")
                    }
                }
            }
            if let superclass = model.superclass {
                guard self.model(named: superclass) != nil else { throw ToolError("\(model.name) inherits from \(superclass), which is not a model of the schema") }
                var chain: Set<String> = [model.name]
                var current: String? = superclass
                while let name = current {
                    guard chain.insert(name).inserted else { throw ToolError("\(model.name)'s superclasses form a cycle") }
                    current = self.model(named: name)?.superclass
                }
            }
        }
    }

    /// Checks an attribute's type, transformer and default: a standard type (with a default of
    /// that type), or a type of the app's own marked `codable` or transformed (without one).
    private func checkType(of attribute: Attribute, field: String) throws(ToolError) {
        if attribute.transformer != nil, attribute.transformerName != nil {
            throw ToolError("\(field) gives both transformer and transformerName; a transformable attribute has one transformer")
        }
        if let transformer = attribute.transformer, !AttributeType.isTypeName(transformer) {
            throw ToolError("\(field): transformer \(transformer.debugDescription) is not a class name")
        }
        if let storage = AttributeType.storage(of: attribute.baseType) {
            if let value = attribute.default {
                try check(value, of: attribute, storage: storage, field: field)
            }
            return
        }
        let isTransformed = attribute.transformer != nil || attribute.transformerName != nil
        guard attribute.codable == true || isTransformed else {
            throw ToolError("\(field) has unknown type \(attribute.type.debugDescription); known types are \(AttributeType.scalars.keys.sorted().joined(separator: ", ")), and arrays, sets and dictionaries of them (a Codable type of the app's own takes \"codable\": true, a transformed one \"transformer\" or \"transformerName\")")
        }
        guard AttributeType.isTypeName(attribute.baseType) else {
            throw ToolError("\(field): \(attribute.type.debugDescription) is not a Swift type name")
        }
        if attribute.default != nil {
            throw ToolError("\(field): a default can be given for the standard types only, and \(attribute.baseType) is the app's own")
        }
    }

    private func check(_ value: DefaultValue, of attribute: Attribute, storage: StorageClass, field: String) throws(ToolError) {
        let type = attribute.baseType
        let fits: Bool
        switch (storage, value) {
        case (.date, .string("now")): fits = true
        case (.date, .string(let text)): fits = ValueText.date(text) != nil
        case (.integer, .integer) where type != "Bool", (.unsignedInteger, .integer), (.real, .integer), (.real, .number): fits = true
        case (.integer, .boolean) where type == "Bool": fits = true
        case (.text, .string(let text)) where type == "URL": fits = URL(string: text) != nil
        case (.decimal, .string(let text)): fits = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) != nil && text.allSatisfy { "0123456789+-.eE".contains($0) }
        case (.text, .string), (.decimal, .integer), (.decimal, .number): fits = true
        case (.uuid, .string(let text)): fits = text == "new" || UUID(uuidString: text) != nil
        case (.json, .string(let text)): fits = text == "[]" || text == "[:]"
        default: fits = false
        }
        guard fits else { throw ToolError("\(field): the default \(value) is not a \(attribute.type)") }
    }
}
