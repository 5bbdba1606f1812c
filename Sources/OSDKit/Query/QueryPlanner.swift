import OpenSwiftData

/// Gives a ``QuerySyntax`` tree its meaning over a store's schema: a ``QueryExpression`` the
/// store's SQL compiler turns into the same SQL a `#Predicate` over the same models becomes, with
/// the same semantics (text compared as Swift compares `String`s, `==` on optionals as Swift's,
/// NaN unequal to everything).
struct QueryPlanner {
    private let schema: StoredSchema
    private var nextScope = 1

    init(schema: StoredSchema) {
        self.schema = schema
    }

    /// What an operand is, for type checking and for choosing the comparison's semantics.
    private enum Kind: Equatable {
        case boolean, number, text, other(String), model(String), toMany(String), null, literal(QuerySyntax.Literal)
    }

    private struct Operand {
        var expression: QueryExpression
        var kind: Kind
        var isOptional: Bool
        /// The attribute whose values the operand holds, for encoding literals compared with it.
        var attribute: StoredSchema.Attribute?
        var column: Int
        var isFloating: Bool { attribute?.storage == .real || attribute?.storage == .date }
    }

    /// The filter `syntax` means over the model `entity`.
    static func filter(_ syntax: QuerySyntax, over entity: StoredSchema.Entity, in schema: StoredSchema) throws(QueryError) -> QueryExpression {
        var planner = QueryPlanner(schema: schema)
        return try planner.condition(syntax, in: entity, scope: 0)
    }

    /// A sort key over an attribute (or a to-one relationship's attribute) of `entity`.
    static func sort(_ path: String, ascending: Bool, over entity: StoredSchema.Entity, in schema: StoredSchema) throws(QueryError) -> QuerySort {
        var planner = QueryPlanner(schema: schema)
        let syntax = try QueryParser.parse(path)
        guard case .path(let members, let column) = syntax else {
            throw QueryError(column: 1, message: "a sort key is a property, such as name or trip.name")
        }
        let operand = try planner.operand(members, column: column, in: entity, scope: 0)
        switch operand.kind {
        case .model, .toMany:
            throw QueryError(column: column, message: "\(path) is not a value to sort by")
        case .boolean where operand.attribute == nil:
            throw QueryError(column: column, message: "\(path) is not a value to sort by")
        default: break
        }
        return QuerySort(attribute: 0, ascending: ascending, expression: operand.expression, isText: operand.kind == .text)
    }

    // MARK: Conditions

    private mutating func condition(_ syntax: QuerySyntax, in entity: StoredSchema.Entity, scope: Int) throws(QueryError) -> QueryExpression {
        switch syntax {
        case .and(let lhs, let rhs):
            return .and(try condition(lhs, in: entity, scope: scope), try condition(rhs, in: entity, scope: scope))
        case .or(let lhs, let rhs):
            return .or(try condition(lhs, in: entity, scope: scope), try condition(rhs, in: entity, scope: scope))
        case .not(let inner, _):
            return .not(try condition(inner, in: entity, scope: scope))
        case .compare(let comparison, let lhs, let rhs, let column):
            return try compare(comparison, try value(lhs, in: entity, scope: scope), try value(rhs, in: entity, scope: scope), column: column)
        case .literal(.boolean(let flag), _):
            return .boolean(flag)
        case .literal(_, let column):
            throw QueryError(column: column, message: "a value alone is not a condition; compare it with a property")
        case .path(let members, let column):
            let operand = try operand(members, column: column, in: entity, scope: scope)
            guard operand.kind == .boolean else {
                throw QueryError(column: column, message: "\(members.map(\.name).joined(separator: ".")) is not a Bool; compare it with a value")
            }
            return booleanCondition(operand)
        }
    }

    /// A Boolean operand as a condition: `true` where it is true, false where it is false or nil.
    private func booleanCondition(_ operand: Operand) -> QueryExpression {
        if operand.attribute == nil && !operand.isOptional { return operand.expression }
        return .falseIfNull(.compare(.equal, operand.expression, .value(.integer(1)), .init()))
    }

    private mutating func value(_ syntax: QuerySyntax, in entity: StoredSchema.Entity, scope: Int) throws(QueryError) -> Operand {
        switch syntax {
        case .literal(let literal, let column):
            return Operand(expression: .value(.null), kind: literal == .null ? .null : .literal(literal), isOptional: literal == .null, attribute: nil, column: column)
        case .path(let members, let column):
            return try operand(members, column: column, in: entity, scope: scope)
        default:
            return Operand(expression: try condition(syntax, in: entity, scope: scope), kind: .boolean, isOptional: false, attribute: nil, column: syntax.column)
        }
    }

    private func compare(_ comparison: QuerySyntax.Comparison, _ lhs: Operand, _ rhs: Operand, column: Int) throws(QueryError) -> QueryExpression {
        var lhs = lhs, rhs = rhs
        if case .literal = lhs.kind, case .literal = rhs.kind {
            throw QueryError(column: lhs.column, message: "compare a property with a value, not two values")
        }
        // nil: only == and !=, as a test for absence.
        if lhs.kind == .null || rhs.kind == .null {
            let other = lhs.kind == .null ? rhs : lhs
            guard comparison == .equal || comparison == .notEqual else {
                throw QueryError(column: column, message: "nil can only be compared with == or !=")
            }
            guard other.isOptional else {
                throw QueryError(column: other.column, message: "this value is never nil")
            }
            let test: QueryExpression = .isNull(other.expression)
            return comparison == .equal ? test : .not(test)
        }
        if case .literal(let literal) = lhs.kind { lhs = try encode(literal, like: rhs, column: lhs.column) }
        if case .literal(let literal) = rhs.kind { rhs = try encode(literal, like: lhs, column: rhs.column) }
        switch (lhs.kind, rhs.kind) {
        case (.model, _), (_, .model), (.toMany, _), (_, .toMany):
            throw QueryError(column: column, message: "models are compared with nil only; compare one of their properties instead")
        default: break
        }
        guard lhs.kind == rhs.kind else {
            throw QueryError(column: column, message: "cannot compare \(describe(lhs.kind)) with \(describe(rhs.kind))")
        }
        if lhs.kind == .boolean, comparison != .equal, comparison != .notEqual {
            throw QueryError(column: column, message: "Booleans are compared with == or != only")
        }
        let optional = lhs.isOptional || rhs.isOptional
        let operation: QueryExpression.ComparisonOperator = switch comparison {
        case .equal: .equal
        case .notEqual: .notEqual
        case .less: .less
        case .lessOrEqual: .lessOrEqual
        case .greater: .greater
        case .greaterOrEqual: .greaterOrEqual
        }
        let isEquality = comparison == .equal || comparison == .notEqual
        let options = QueryExpression.CompareOptions(
            nullSafe: isEquality && optional, text: lhs.kind == .text, floating: lhs.isFloating || rhs.isFloating)
        let result: QueryExpression = .compare(operation, lhs.expression, rhs.expression, options)
        // Swift compares no optional with < or >; here nil is smaller than nothing and larger than nothing.
        return !isEquality && optional ? .falseIfNull(result) : result
    }

    /// A literal as a value of the attribute it is compared with.
    private func encode(_ literal: QuerySyntax.Literal, like other: Operand, column: Int) throws(QueryError) -> Operand {
        let text: String
        switch literal {
        case .number(let number): text = number
        case .string(let string): text = string
        case .boolean(let flag): text = flag ? "true" : "false"
        case .null: text = ""
        }
        guard let attribute = other.attribute else {
            // A count or a Boolean condition.
            switch (other.kind, literal) {
            case (.number, .number(let number)):
                guard let integer = Int64(number) else { throw QueryError(column: column, message: "expected a whole number") }
                return Operand(expression: .value(.integer(integer)), kind: .number, isOptional: false, attribute: nil, column: column)
            case (.boolean, .boolean(let flag)):
                return Operand(expression: .boolean(flag), kind: .boolean, isOptional: false, attribute: nil, column: column)
            default:
                throw QueryError(column: column, message: "expected \(describe(other.kind))")
            }
        }
        switch (attribute.storage, literal) {
        case (.text, .string), (.uuid, .string), (.date, .string), (.decimal, .string), (.decimal, .number), (.json, .string),
             (.integer, .number), (.unsignedInteger, .number), (.real, .number), (.date, .number), (.integer, .boolean), (.blob, .string):
            break
        case (.real, .string(let special)) where ["nan", "inf", "-inf"].contains(special):
            break
        default:
            throw QueryError(column: column, message: "expected \(describe(other.kind)) for \(attribute.name)")
        }
        do {
            let value = try ValueText.value(text, for: attribute)
            return Operand(expression: .value(attribute.encode(value)), kind: other.kind, isOptional: false, attribute: attribute, column: column)
        } catch {
            throw QueryError(column: column, message: "\(error.message) for \(attribute.name)")
        }
    }

    private func describe(_ kind: Kind) -> String {
        switch kind {
        case .boolean: "a Bool"
        case .number: "a number"
        case .text: "text"
        case .other(let type): "a \(type)"
        case .model(let name): "a \(name)"
        case .toMany(let name): "a collection of \(name)"
        case .null: "nil"
        case .literal: "a value"
        }
    }

    // MARK: Paths

    private mutating func operand(_ members: [QuerySyntax.Member], column: Int, in entity: StoredSchema.Entity, scope: Int) throws(QueryError) -> Operand {
        let first = members[0]
        let rest = Array(members.dropFirst())
        if let attribute = entity.attribute(named: first.name) {
            guard first.arguments == nil else { throw QueryError(column: first.column, message: "\(first.name) is a property, not a method") }
            let type = StoredSchema.Entity.baseType(of: attribute)
            let kind: Kind = switch attribute.storage {
            case .integer where type == "Bool": .boolean
            case .integer, .unsignedInteger, .real: .number
            case .text where type != "URL": .text
            default: .other(type)
            }
            let base = Operand(expression: .scoped(scope: scope, property: attribute.name), kind: kind, isOptional: attribute.isOptional, attribute: attribute, column: first.column)
            return try applying(rest, to: base, in: entity, scope: scope)
        }
        guard let relationship = entity.relationship(named: first.name) else {
            let names = entity.plainAttributes.map(\.name) + entity.recordedRelationships.map(\.name)
            throw QueryError(column: first.column, message: "\(entity.name) has no property \(first.name)\(suggestion(for: first.name, among: names))")
        }
        let destination: StoredSchema.Entity
        do { destination = try schema.entity(named: relationship.destination) } catch {
            throw QueryError(column: first.column, message: error.message)
        }
        let inner = nextScope
        nextScope += 1
        let relation: QueryExpression.Relation
        switch relationship.storage {
        case "column":
            relation = .primaryKey(.scoped(scope: scope, property: relationship.name))
        case "inverse":
            guard let inverse = relationship.inverse else { throw QueryError(column: first.column, message: "\(relationship.name) has no recorded inverse") }
            relation = .inverse(property: inverse, equals: .key(scope: scope))
        default:
            guard let link = relationship.linkName else { throw QueryError(column: first.column, message: "\(relationship.name) has no recorded link table") }
            relation = .link(link, ownerIsSource: relationship.ownsLink ?? true, owner: .key(scope: scope))
        }
        func related(_ output: QueryExpression.Output) -> QueryExpression {
            .subquery(.init(scope: inner, entity: destination.name, relation: relation, filter: nil, output: output))
        }
        if relationship.isToMany {
            guard let member = rest.first, rest.count == 1, member.arguments == nil || member.name == "contains" else {
                throw QueryError(column: first.column, message: "\(relationship.name) is a to-many relationship: use \(relationship.name).isEmpty or \(relationship.name).count")
            }
            switch member.name {
            case "isEmpty":
                return Operand(expression: .not(related(.exists)), kind: .boolean, isOptional: false, attribute: nil, column: first.column)
            case "count":
                return Operand(expression: related(.count), kind: .number, isOptional: false, attribute: nil, column: first.column)
            case "contains" where member.arguments?.count == 1:
                // `tags.contains(where: name == "x")`: whether a related model matches.
                let filter = try condition(member.arguments![0], in: destination, scope: inner)
                return Operand(
                    expression: .subquery(.init(scope: inner, entity: destination.name, relation: relation, filter: filter, output: .exists)),
                    kind: .boolean, isOptional: false, attribute: nil, column: first.column)
            default:
                throw QueryError(column: member.column, message: "a to-many relationship has isEmpty, count and contains(where: …)")
            }
        }
        guard !rest.isEmpty else {
            let present: QueryExpression = relationship.storage == "column" ? .scoped(scope: scope, property: relationship.name) : related(.value(.key(scope: inner)))
            return Operand(expression: present, kind: .model(destination.name), isOptional: true, attribute: nil, column: first.column)
        }
        var value = try operand(rest, column: rest[0].column, in: destination, scope: inner)
        value.expression = related(.value(value.expression))
        value.isOptional = true
        return value
    }

    /// Members of a value: `count`, `isEmpty`, `contains(_:)`, `starts(with:)`, `hasPrefix(_:)`,
    /// `localizedStandardContains(_:)` on text.
    private mutating func applying(_ members: [QuerySyntax.Member], to base: Operand, in entity: StoredSchema.Entity, scope: Int) throws(QueryError) -> Operand {
        guard let member = members.first else { return base }
        guard base.kind == .text else { throw QueryError(column: member.column, message: "\(describe(base.kind)) has no member \(member.name)") }
        guard members.count == 1 else { throw QueryError(column: members[1].column, message: "expected the end of the path") }
        let guarded: (QueryExpression) -> QueryExpression = { base.isOptional ? .falseIfNull($0) : $0 }
        switch (member.name, member.arguments?.count) {
        case ("count", nil):
            return Operand(expression: .text(.count, [base.expression]), kind: .number, isOptional: base.isOptional, attribute: nil, column: member.column)
        case ("isEmpty", nil):
            let empty = QueryExpression.compare(.equal, base.expression, .value(.text("")), .init(text: true))
            return Operand(expression: guarded(empty), kind: .boolean, isOptional: false, attribute: nil, column: member.column)
        case ("contains", 1), ("starts", 1), ("hasPrefix", 1), ("localizedStandardContains", 1):
            let argument = try value(member.arguments![0], in: entity, scope: scope)
            let needle: QueryExpression
            switch argument.kind {
            case .literal(.string(let text)): needle = .value(.text(text))
            case .text where !argument.isOptional: needle = argument.expression
            default: throw QueryError(column: argument.column, message: "\(member.name) takes a text value")
            }
            let function: QueryExpression.TextFunction = switch member.name {
            case "contains": .contains
            case "localizedStandardContains": .localizedStandardContains
            default: .startsWith
            }
            return Operand(expression: guarded(.text(function, [base.expression, needle])), kind: .boolean, isOptional: false, attribute: nil, column: member.column)
        default:
            throw QueryError(column: member.column, message: "text has count, isEmpty, contains(_:), starts(with:), hasPrefix(_:) and localizedStandardContains(_:), not \(member.name)")
        }
    }
}
