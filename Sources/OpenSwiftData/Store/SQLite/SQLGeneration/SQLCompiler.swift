/// Compiles a ``QueryExpression`` into SQL text and its bound arguments. Values never enter the
/// text, so equal query shapes produce equal SQL and share a cached prepared statement.
struct SQLCompiler {
    /// The fetched table, quoted.
    let table: String
    /// The quoted column of each attribute, by property index (empty when expressions name
    /// properties by ``QueryExpression/scoped(scope:property:)`` only).
    let columns: [String?]
    private(set) var arguments: [StoredValue] = []

    init(layout: TableLayout) {
        self.table = layout.table
        self.columns = layout.columns
    }

    /// A compiler for expressions that name properties by name, over the (quoted) table.
    init(table: String) {
        self.table = table
        self.columns = []
    }

    /// A compiler whose SQL names each attribute by a column of its own (`c` and its index) in
    /// `table`, which need not exist: for checking whether SQLite parses an expression.
    init(namingAttributesByIndexIn table: String) {
        self.table = table
        self.columns = []
        self.namesEveryAttribute = true
    }

    /// Whether an attribute without a column is named as one (`c` and its index) rather than NULL.
    private var namesEveryAttribute = false

    private func column(_ index: Int) -> String {
        if namesEveryAttribute { return "c\(index)" }
        return index < columns.count ? columns[index] ?? "NULL" : "NULL"
    }

    mutating func sql(_ expression: QueryExpression) -> String {
        switch expression {
        case .attribute(let index):
            return "\(table).\(column(index))"
        case .scoped(let scope, let property):
            return "\(alias(scope)).\(SQL.quote(property))"
        case .key(let scope):
            return "\(alias(scope)).\(TableLayout.primaryKey)"
        case .subquery(let subquery):
            return self.subquery(subquery)
        case .value(let value):
            arguments.append(value)
            return "?"
        case .boolean(let value):
            return value ? "1" : "0"
        case .compare(let operation, let lhs, let rhs, let options):
            return comparison(operation, lhs, rhs, options)
        case .and(let lhs, let rhs):
            return "(\(sql(lhs)) AND \(sql(rhs)))"
        case .or(let lhs, let rhs):
            return "(\(sql(lhs)) OR \(sql(rhs)))"
        case .not(let operand):
            return "(NOT \(sql(operand)))"
        case .arithmetic(let operation, let lhs, let rhs):
            let symbol = switch operation {
            case .add: "+"
            case .subtract: "-"
            case .multiply: "*"
            case .divide: "/"
            case .remainder: "%"
            }
            return "(\(sql(lhs)) \(symbol) \(sql(rhs)))"
        case .negate(let operand):
            return "(- \(sql(operand)))"
        case .conditional(let test, let yes, let no):
            return "(CASE WHEN \(sql(test)) THEN \(sql(yes)) ELSE \(sql(no)) END)"
        case .coalesce(let lhs, let rhs):
            return "COALESCE(\(sql(lhs)), \(sql(rhs)))"
        case .isNull(let operand):
            return "(\(sql(operand)) IS NULL)"
        case .falseIfNull(let operand):
            return "IFNULL(\(sql(operand)), 0)"
        case .text(let function, let operands):
            let name = switch function {
            case .contains: "osd_contains"
            case .startsWith: "osd_starts"
            case .count: "osd_count"
            case .localizedStandardContains: "osd_lsc"
            case .caseInsensitiveCompare: "osd_cic"
            case .localizedCompare: "osd_lc"
            }
            return "\(name)(\(operands.map { sql($0) }.joined(separator: ", ")))"
        case .inList(let operand, let values):
            let left = sql(operand)
            arguments.append(contentsOf: values)
            return "(\(left) IN (\(Array(repeating: "?", count: values.count).joined(separator: ", "))))"
        }
    }

    private mutating func comparison(
        _ operation: QueryExpression.ComparisonOperator, _ lhs: QueryExpression, _ rhs: QueryExpression,
        _ options: QueryExpression.CompareOptions
    ) -> String {
        func symbol(_ operation: QueryExpression.ComparisonOperator) -> String {
            operation.sqlSymbol(nullSafe: options.nullSafe ? ("IS", "IS NOT") : nil)
        }
        if options.floating, let (property, number, operation) = QueryExpression.storedPropertyAgainstNumber(operation, lhs, rhs) {
            // NaN is stored as a BLOB, which SQLite orders after every number: it already fails
            // `=`, `<`, `<=` and passes `<>`, as in Swift; `>` and `>=` leave BLOBs out with a
            // test beside the comparison (an upper bound would hide the query's own from SQLite's
            // planner). The column stays bare, so an index on it serves the comparison.
            let column = sql(property)
            arguments.append(.real(number))
            let compared = "(\(column) \(symbol(operation)) ?)"
            return operation.admitsGreater ? "(\(compared) AND typeof(\(column)) <> 'blob')" : compared
        }
        let symbol = symbol(operation)
        let collation = options.text ? " COLLATE \(SwiftSemantics.collationName)" : ""
        let left = sql(lhs)
        let right = sql(rhs)
        let plain = "(\(left)\(collation) \(symbol) \(right))"
        guard options.floating else { return plain }
        // NaN is stored as a BLOB; Swift says NaN is unequal to everything and unordered.
        let nanResult = operation == .notEqual ? "1" : "0"
        let leftAgain = sql(lhs)
        let rightAgain = sql(rhs)
        return "(CASE WHEN typeof(\(leftAgain)) = 'blob' OR typeof(\(rightAgain)) = 'blob' THEN \(nanResult) ELSE \(plain) END)"
    }

    /// `ORDER BY` for sort keys, with the primary key as the final tiebreaker.
    mutating func orderBy(_ sort: [QuerySort]) -> String {
        let keys = sort.map { key in
            let collation = key.collation.map(SwiftSemantics.collationName(for:)) ?? SwiftSemantics.collationName
            let value = key.expression.map { sql($0) + (key.isText ? " COLLATE \(collation)" : "") }
                ?? "\(table).\(column(key.attribute))" + (key.collation == nil ? "" : " COLLATE \(collation)")
            return "\(value) \(key.ascending ? "ASC" : "DESC")"
        }
        return " ORDER BY " + (keys + ["\(table).\(TableLayout.primaryKey)" + (QuerySort.keysDescend(after: sort) ? " DESC" : "")]).joined(separator: ", ")
    }

    /// The name a scope's rows go by: the fetched table for scope 0, an alias for subqueries.
    private func alias(_ scope: Int) -> String {
        scope == 0 ? table : "s\(scope)"
    }

    /// A correlated subquery over related rows.
    private mutating func subquery(_ query: QueryExpression.Subquery) -> String {
        let alias = alias(query.scope)
        let output = switch query.output {
        case .value(let expression): sql(expression)
        case .exists, .count: query.output == .count ? "count(*)" : "1"
        }
        var from = "\(SQL.quote(query.entity)) AS \(alias)"
        let condition: String
        switch query.relation {
        case .primaryKey(let key):
            condition = "\(alias).\(TableLayout.primaryKey) = \(sql(key))"
        case .inverse(let property, let key):
            condition = "\(alias).\(SQL.quote(property)) = \(sql(key))"
        case .link(let name, let ownerIsSource, let owner):
            let table = name.table
            let link = "l\(query.scope)"
            let (own, other) = ownerIsSource ? ("owner", "target") : ("target", "owner")
            from += " JOIN \(SQL.quote(table)) AS \(link) ON \(link).\(other) = \(alias).\(TableLayout.primaryKey)"
            condition = "\(link).\(own) = \(sql(owner))"
        }
        let filter = query.filter.map { " AND \(sql($0))" } ?? ""
        let select = "SELECT \(output) FROM \(from) WHERE \(condition)\(filter)"
        return query.output == .exists ? "EXISTS (\(select))" : "(\(select))"
    }
}
