extension SQLiteStore: StoreBackend {
    /// SQLite evaluates every expression the translator produces (Swift's text semantics through
    /// functions registered on each connection) that its parser and its parameters can take:
    /// binding fewer values than the library allows a statement (with room for the rest of the
    /// statement's), and nested no deeper than its parser's fixed stack allows (about twenty
    /// levels of `? :`, a hundred of `!`), which an expression deeper than a dozen levels is
    /// checked against by parsing it. The rest runs in Swift.
    func canEvaluate(_ expression: QueryExpression) -> Bool {
        let shape = expression.shape
        guard shape.fitsAStatement(parameterLimit: Self.parameterLimit) else { return false }
        return shape.depth <= 12 || Self.parserTakes(expression)
    }

    /// Whether SQLite's parser takes a query filtered by the expression (a deep one can overflow
    /// its stack); parsed on a connection of its own, where no table exists, so that any error
    /// after parsing means it does.
    private static func parserTakes(_ expression: QueryExpression) -> Bool {
        var compiler = SQLCompiler(namingAttributesByIndexIn: "t")
        let sql = "SELECT 1 FROM t WHERE \(compiler.sql(expression))"
        do {
            let scratch = try SQLiteConnection(path: ":memory:", readOnly: false, create: true)
            return scratch.parses(sql)
        } catch {
            return false
        }
    }

    /// The most parameters the SQLite library allows one statement (32,766 by default; builds
    /// may raise it).
    private static let parameterLimit: Int = {
        do {
            return try SQLiteConnection(path: ":memory:", readOnly: false, create: true).parameterLimit
        } catch {
            return 32_766
        }
    }()

    /// SQLite orders by every sort key the translator produces.
    func canSort(by sort: [QuerySort]) -> Bool { true }
}

/// SQLite applies delete rules in SQL (see `SQLiteStore+DeleteRules.swift`), writes updates by
/// predicate in SQL (`SQLiteStore+BatchUpdate.swift`), computes aggregates
/// (`SQLiteStore+Fetch.swift`), keeps history and sees other connections' commits
/// (`SQLiteStore+History.swift`).
extension SQLiteStore: DeleteRuleApplyingStore, BatchUpdatingStore, AggregatingStore, HistoryRecordingStore, ExternalCommitWatchingStore {
    /// SQLite asks when it is asked (`PRAGMA data_version`).
    var externalCommitMarkerLags: Bool { false }
}

extension ModelConfiguration: StoreBackendConfiguration {
    /// Opens (or creates) the store this configuration describes: an SQLite file at its URL, after
    /// running the container's migration plan on it (``SQLitePlanMigration``), or an in-memory
    /// SQLite database.
    package func openBackend(schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?) throws -> any StoreBackend {
        if let migrationPlan, !isStoredInMemoryOnly {
            try SQLitePlanMigration.run(migrationPlan, storeAt: url, target: schema)
        }
        return try SQLiteStore(url: isStoredInMemoryOnly ? nil : url, schema: schema, allowsSave: allowsSave, allowsDestructiveMigration: allowsDestructiveMigration)
    }
}
