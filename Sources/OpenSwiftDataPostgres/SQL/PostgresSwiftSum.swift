/// `osd_sum_real(x)`: the sum of a `double precision` column as Swift's `+` adds it, one row after
/// another in the order the server visits them, from `0`.
///
/// PostgreSQL's own `sum(float8)` may add in parallel workers and combine their partial sums, which
/// rounds differently from any one order. This aggregate adds with the server's `float8pl` (IEEE
/// addition, as Swift's `+`) and has no combine function, and an aggregate not marked `PARALLEL
/// SAFE` keeps the whole statement in one process. `float8pl` fails with SQLSTATE 22003 where two
/// finite values add up to an infinity, which Swift's `+` returns; the store then reads the values
/// and leaves the sum to the context (``PostgresFailure/isOutOfRange(_:)``).
enum PostgresSwiftSum {
    /// The statement that creates the aggregate in a namespace (quoted).
    static func createStatement(namespace: String) -> String {
        "CREATE AGGREGATE \(namespace).osd_sum_real(double precision) (SFUNC = pg_catalog.float8pl, STYPE = double precision, INITCOND = '0')"
    }

    /// The aggregate of `value` (a column expression) in a namespace (quoted).
    static func call(_ value: String, namespace: String) -> String {
        "\(namespace).osd_sum_real(\(value))"
    }
}
