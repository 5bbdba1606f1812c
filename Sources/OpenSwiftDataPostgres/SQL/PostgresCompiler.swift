import OpenSwiftData
import PostgresNIO

/// Compiles a ``QueryExpression`` into PostgreSQL text and its bound parameters, with Swift's
/// semantics: text compared by NFC forms byte-wise, NaN unequal to everything and unordered, `nil`
/// compared as a value where Swift's `==` on optionals does, integer division by zero as NULL.
///
/// PostgreSQL is typed where SQLite is not, so each expression is compiled either as a condition
/// (a Boolean) or as a value, and converted where the context asks for the other. Values never
/// enter the text.
struct PostgresCompiler {
    /// The fetched table, whose properties `.attribute` expressions name by index; `nil` for
    /// expressions that name properties only by name (`.scoped`), as `osd query` plans them.
    let table: PostgresTable?
    /// The quoted namespace of the fetched table and of every table a subquery reads.
    let namespace: String
    /// The values of the statement's parameters, `$1` first.
    private(set) var parameters: [StoredValue] = []

    /// The parameters, bound for a statement the server parses.
    var bindings: PostgresBindings {
        var bindings = PostgresBindings(capacity: parameters.count)
        for value in parameters {
            switch value {
            case .null: bindings.appendNull()
            case .integer(let number): bindings.append(number)
            case .real(let number): bindings.append(number)
            case .text(let text): bindings.append(text)
            case .blob(let bytes): bindings.append(ByteBuffer(bytes: bytes))
            }
        }
        return bindings
    }

    /// The parameters, as the arguments of a prepared statement (the SQL casts each one, so the
    /// server infers the types these have).
    var arguments: [PostgresData] {
        parameters.map { value in
            switch value {
            case .null: .null
            case .integer(let number): PostgresData(int64: number)
            case .real(let number): PostgresData(double: number)
            case .text(let text): PostgresData(string: text)
            case .blob(let bytes): PostgresData(type: .bytea, value: ByteBuffer(bytes: bytes))
            }
        }
    }

    init(table: PostgresTable) {
        self.table = table
        self.namespace = table.namespace
    }

    /// A compiler for expressions over the tables of `namespace` (quoted) that name properties
    /// by name: the fetched table goes by `t0`.
    init(namespace: String) {
        self.table = nil
        self.namespace = namespace
    }

    /// The fetched table, for an expression that names a property by index.
    private func fetchedTable() throws -> PostgresTable {
        guard let table else {
            throw SwiftDataError(.unsupportedPredicate, reason: "A property named by its index needs the fetched table's models")
        }
        return table
    }

    /// Whether the compiler can express `expression`: everything but Swift's Character-based text
    /// functions and text holding U+0000 (which PostgreSQL cannot take as a parameter; no stored
    /// text holds it, but it still orders between stored values), which run in Swift.
    static func canCompile(_ expression: QueryExpression) -> Bool {
        switch expression {
        case .text: false
        case .value(let value): canBind(value)
        case .attribute, .boolean, .scoped, .key: true
        case .compare(_, let lhs, let rhs, _), .and(let lhs, let rhs), .or(let lhs, let rhs),
             .arithmetic(_, let lhs, let rhs), .coalesce(let lhs, let rhs):
            canCompile(lhs) && canCompile(rhs)
        case .not(let operand), .negate(let operand), .isNull(let operand), .falseIfNull(let operand):
            canCompile(operand)
        case .inList(let operand, let values):
            canCompile(operand) && values.allSatisfy(canBind)
        case .conditional(let test, let yes, let no):
            canCompile(test) && canCompile(yes) && canCompile(no)
        case .subquery(let query):
            (query.filter.map(canCompile) ?? true) && {
                switch query.output {
                case .value(let value): canCompile(value)
                case .exists, .count: true
                }
            }() && {
                switch query.relation {
                case .primaryKey(let key), .inverse(_, let key), .link(_, _, let key): canCompile(key)
                }
            }()
        }
    }

    /// Whether a value can be a parameter: text cannot hold U+0000 in PostgreSQL.
    private static func canBind(_ value: StoredValue) -> Bool {
        guard case .text(let text) = value else { return true }
        return PostgresSQL.canHold(text)
    }

    /// Whether an expression is a Boolean in PostgreSQL.
    private static func isCondition(_ expression: QueryExpression) -> Bool {
        switch expression {
        case .compare, .and, .or, .not, .isNull, .falseIfNull, .inList, .boolean: true
        case .subquery(let query): query.output == .exists
        case .conditional(_, let yes, let no), .coalesce(let yes, let no): isCondition(yes) && isCondition(no)
        default: false
        }
    }

    /// The expression as a Boolean: a value is true when it is not zero.
    mutating func condition(_ expression: QueryExpression) throws -> String {
        Self.isCondition(expression) ? try booleanSQL(expression) : "(\(try value(expression)) <> 0)"
    }

    /// The expression as a value: a Boolean is 1 or 0 (or NULL).
    mutating func value(_ expression: QueryExpression) throws -> String {
        if Self.isCondition(expression) { return "((\(try booleanSQL(expression)))::int4::int8)" }
        switch expression {
        case .attribute(let index):
            let table = try fetchedTable()
            return index < table.columns.count ? table.columns[index].map { "t0.\($0)" } ?? "NULL" : "NULL"
        case .scoped(let scope, let property):
            return "\(Self.alias(scope)).\(PostgresSQL.quote(property))"
        case .key(let scope):
            return "\(Self.alias(scope)).\(PostgresSQL.primaryKey)"
        case .value(let stored):
            return parameter(stored)
        case .arithmetic(let operation, let lhs, let rhs):
            let left = try value(lhs)
            let right = try value(rhs)
            return switch operation {
            case .add: "(\(left) + \(right))"
            case .subtract: "(\(left) - \(right))"
            case .multiply: "(\(left) * \(right))"
            // SQLite's answer to a zero divisor, which the SQL store gives too: NULL, not an error.
            case .divide: "(\(left) / NULLIF(\(right), 0))"
            case .remainder: "(\(left) % NULLIF(\(right), 0))"
            }
        case .negate(let operand):
            return "(- \(try value(operand)))"
        case .conditional(let test, let yes, let no):
            return "(CASE WHEN \(try condition(test)) THEN \(try value(yes)) ELSE \(try value(no)) END)"
        case .coalesce(let lhs, let rhs):
            return "COALESCE(\(try value(lhs)), \(try value(rhs)))"
        case .subquery(let query):
            return try subquery(query)
        case .text:
            throw SwiftDataError(.unsupportedPredicate, reason: "The PostgreSQL store evaluates Character-based text functions in Swift")
        case .compare, .and, .or, .not, .isNull, .falseIfNull, .inList, .boolean:
            return try booleanSQL(expression)
        }
    }

    private mutating func booleanSQL(_ expression: QueryExpression) throws -> String {
        switch expression {
        case .boolean(let value):
            return value ? "TRUE" : "FALSE"
        case .compare(let operation, let lhs, let rhs, let options):
            return try comparison(operation, lhs, rhs, options)
        case .and(let lhs, let rhs):
            return "(\(try condition(lhs)) AND \(try condition(rhs)))"
        case .or(let lhs, let rhs):
            return "(\(try condition(lhs)) OR \(try condition(rhs)))"
        case .not(let operand):
            return "(NOT \(try condition(operand)))"
        case .isNull(let operand):
            return "(\(Self.isCondition(operand) ? try booleanSQL(operand) : try indexedValue(operand)) IS NULL)"
        case .falseIfNull(let operand):
            return "COALESCE(\(try condition(operand)), FALSE)"
        case .inList(let operand, let values):
            // NaN equals nothing in Swift; PostgreSQL says NaN = NaN.
            let isFloating = values.contains { if case .real = $0 { true } else { false } }
            let candidates = values.filter {
                switch $0 {
                case .real(let number): !number.isNaN
                case .blob(let bytes): !(isFloating && bytes.count == 8)
                default: true
                }
            }
            guard !candidates.isEmpty else { return "FALSE" }
            let isText = candidates.contains { if case .text = $0 { true } else { false } }
            let left = try value(operand)
            let list = candidates.map { isText ? PostgresSQL.swiftText(parameter($0)) : parameter($0) }
            return "(\(isText ? PostgresSQL.swiftText(left) : left) IN (\(list.joined(separator: ", "))))"
        case .subquery(let query):
            return try subquery(query)
        case .conditional(let test, let yes, let no):
            return "(CASE WHEN \(try condition(test)) THEN \(try condition(yes)) ELSE \(try condition(no)) END)"
        case .coalesce(let lhs, let rhs):
            return "COALESCE(\(try condition(lhs)), \(try condition(rhs)))"
        default:
            return "(\(try value(expression)) <> 0)"
        }
    }

    private mutating func comparison(
        _ operation: QueryExpression.ComparisonOperator, _ lhs: QueryExpression, _ rhs: QueryExpression,
        _ options: QueryExpression.CompareOptions
    ) throws -> String {
        func symbol(_ operation: QueryExpression.ComparisonOperator) -> String {
            operation.sqlSymbol(nullSafe: options.nullSafe ? ("IS NOT DISTINCT FROM", "IS DISTINCT FROM") : nil)
        }
        if options.nullSafe, operation == .equal || operation == .notEqual,
           let (property, stored, _) = QueryExpression.storedPropertyAgainstValue(operation, lhs, rhs) {
            // `IS [NOT] DISTINCT FROM` never uses an index. Against NULL it is `IS [NOT] NULL`;
            // equality with a value that is not NULL is `=` on a row whose column is not NULL.
            if stored == .null { return "(\(try indexedValue(property)) IS \(operation == .equal ? "" : "NOT ")NULL)" }
            if operation == .equal {
                var plain = options
                plain.nullSafe = false
                return "(\(try comparison(.equal, lhs, rhs, plain)) AND \(try value(property)) IS NOT NULL)"
            }
        }
        if options.floating, let (property, number, operation) = QueryExpression.storedPropertyAgainstNumber(operation, lhs, rhs) {
            // PostgreSQL orders NaN after every number: a NaN column already fails `=`, `<`, `<=`
            // and passes `<>`, as in Swift; `>` and `>=` stop below NaN. The column stays bare, so
            // an index on it serves the comparison.
            let column = try value(property)
            let compared = "(\(column) \(symbol(operation)) \(parameter(.real(number))))"
            return operation.admitsGreater ? "(\(compared) AND \(column) < 'NaN'::float8)" : compared
        }
        let symbol = symbol(operation)
        // A NaN operand arrives as its 8 bytes, the SQLite store's form.
        let lhs = options.floating ? Self.nanAsReal(lhs) : lhs
        let rhs = options.floating ? Self.nanAsReal(rhs) : rhs
        func operand(_ expression: QueryExpression) throws -> String {
            let sql = try value(expression)
            return options.text ? PostgresSQL.swiftText(sql) : sql
        }
        let plain = "(\(try operand(lhs)) \(symbol) \(try operand(rhs)))"
        guard options.floating else { return plain }
        // Swift says NaN is unequal to everything and unordered; PostgreSQL orders it last.
        let nanResult = operation == .notEqual ? "TRUE" : "FALSE"
        let left = try value(lhs)
        let right = try value(rhs)
        return "(CASE WHEN (\(left))::float8 = 'NaN'::float8 OR (\(right))::float8 = 'NaN'::float8 THEN \(nanResult) ELSE \(plain) END)"
    }

    /// The expression as a value, a text attribute as its NFC form, which is NULL when the
    /// attribute is: the form indexes hold it in (``PostgresTableDDL/declaredIndexes``), so that a
    /// test for NULL can use them.
    private mutating func indexedValue(_ expression: QueryExpression) throws -> String {
        if case .attribute(let index) = expression, let table, index < table.entity.fields.count, table.entity.fields[index].storage == .text {
            return PostgresSQL.swiftText(try value(expression))
        }
        return try value(expression)
    }

    /// A floating-point value given as the 8 bytes of a NaN, as a real.
    private static func nanAsReal(_ expression: QueryExpression) -> QueryExpression {
        guard case .value(.blob(let bytes)) = expression, bytes.count == 8 else { return expression }
        let bits = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
        return .value(.real(Double(bitPattern: bits)))
    }

    /// `ORDER BY` for sort keys, with the primary key as the final tiebreaker (see
    /// ``sortTerm(_:)``).
    mutating func orderBy(_ sort: [QuerySort]) throws -> String {
        let keys = try sort.map { key in
            let term = try sortTerm(key)
            return "\(term.value) \(term.direction)"
        }
        return " ORDER BY " + (keys + ["t0.\(PostgresSQL.primaryKey)" + (QuerySort.keysDescend(after: sort) ? " DESC" : "")]).joined(separator: ", ")
    }

    /// The value one sort key orders by and its direction. `nil` sorts first ascending, as in
    /// Swift and in the SQLite store. A key that cannot be `nil` (a non-optional attribute of the
    /// fetched model) names no place for `NULL`s, so that an index on it, which keeps them last,
    /// serves the order (scanned backwards for a descending key).
    mutating func sortTerm(_ key: QuerySort) throws -> (value: String, direction: String, canBeNil: Bool) {
        let isText: Bool
        let sql: String
        var canBeNil = true
        if let expression = key.expression {
            sql = try value(expression)
            isText = key.isText
        } else {
            let table = try fetchedTable()
            sql = try value(.attribute(key.attribute))
            let field = key.attribute < table.entity.fields.count ? table.entity.fields[key.attribute] : nil
            isText = field?.storage == .text
            canBeNil = field.map { $0.isOptional || $0.attribute == nil } ?? true
        }
        let direction = key.ascending ? (canBeNil ? "ASC NULLS FIRST" : "ASC") : (canBeNil ? "DESC NULLS LAST" : "DESC")
        return (isText ? PostgresSQL.swiftText(sql) : sql, direction, canBeNil)
    }

    /// A bound parameter of a value, typed so that PostgreSQL need not infer it.
    private mutating func parameter(_ stored: StoredValue) -> String {
        let type: String
        switch stored {
        case .null: return "NULL"
        case .integer: type = "int8"
        case .real: type = "float8"
        case .text: type = "text"
        case .blob: type = "bytea"
        }
        parameters.append(stored)
        return "$\(parameters.count)::\(type)"
    }

    /// Appends a key parameter after the expression's own, for statements that add one.
    mutating func keyParameter(_ key: Int64) -> String {
        parameter(.integer(key))
    }

    /// The name a scope's rows go by: `t0` for the fetched table, an alias for subqueries.
    private static func alias(_ scope: Int) -> String {
        scope == 0 ? "t0" : "s\(scope)"
    }

    /// A correlated subquery over related rows.
    private mutating func subquery(_ query: QueryExpression.Subquery) throws -> String {
        let alias = Self.alias(query.scope)
        let output = switch query.output {
        case .value(let expression): try value(expression)
        case .exists: "1"
        case .count: "count(*)"
        }
        var from = "\(namespace).\(PostgresSQL.quote(query.entity)) AS \(alias)"
        let condition: String
        switch query.relation {
        case .primaryKey(let key):
            condition = "\(alias).\(PostgresSQL.primaryKey) = \(try value(key))"
        case .inverse(let property, let key):
            condition = "\(alias).\(PostgresSQL.quote(property)) = \(try value(key))"
        case .link(let name, let ownerIsSource, let owner):
            let link = "l\(query.scope)"
            let (own, other) = ownerIsSource ? ("owner", "target") : ("target", "owner")
            from += " JOIN \(PostgresTable.linkTable(name, namespace: namespace)) AS \(link) ON \(link).\(other) = \(alias).\(PostgresSQL.primaryKey)"
            condition = "\(link).\(own) = \(try value(owner))"
        }
        let filter = try query.filter.map { " AND \(try self.condition($0))" } ?? ""
        let select = "SELECT \(output) FROM \(from) WHERE \(condition)\(filter)"
        return query.output == .exists ? "EXISTS (\(select))" : "(\(select))"
    }
}
