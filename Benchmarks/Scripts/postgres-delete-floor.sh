#!/usr/bin/env bash
# W6's statements alone, timed by the server (EXPLAIN ANALYZE's execution time, no client):
#
#   Scripts/with-postgres.sh Benchmarks/Scripts/postgres-delete-floor.sh [ROUNDS]
#
# On a fresh, vacuumed copy of a 100,000-trip table for each run, in turn: Fluent's W6 (a plain
# DELETE of the ~20% with rating = 1), the same DELETE returning the deleted keys, and the form
# OpenSwiftData sends (the keys gathered into one array). Prints the median, least and greatest
# milliseconds of each over ROUNDS rounds (default 15).
set -euo pipefail
ROUNDS=${1:-15}
P=(psql "$OSD_POSTGRES_URL" -q -X -v ON_ERROR_STOP=1)
"${P[@]}" -c "DROP TABLE IF EXISTS trip" -c "
    CREATE TABLE trip (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL, destination TEXT NOT NULL,
        startDate DOUBLE PRECISION NOT NULL, endDate DOUBLE PRECISION NOT NULL, rating BIGINT NOT NULL,
        isFavorite BIGINT NOT NULL, budget DOUBLE PRECISION NOT NULL, notes TEXT)" -c "
    INSERT INTO trip (name, destination, startDate, endDate, rating, isFavorite, budget, notes)
    SELECT 'Trip ' || g, 'City ' || (g % 50), g * 86400.0, g * 86400.0 + 3600, (g % 5) + 1, (g % 3 = 0)::int, g * 1.5,
        CASE WHEN g % 4 = 0 THEN NULL ELSE 'note ' || g END
    FROM generate_series(1, 100000) g"
declare -A STATEMENT=(
    [plain]="DELETE FROM t WHERE rating = 1"
    [returning]="DELETE FROM t WHERE rating = 1 RETURNING id"
    [array]="WITH d AS (DELETE FROM t AS t0 WHERE t0.rating = 1 RETURNING t0.id AS k) SELECT array_agg(k) FROM d"
)
RESULTS=$(mktemp)
trap 'rm -f "$RESULTS"' EXIT
for _ in $(seq 1 "$ROUNDS"); do
    for form in plain returning array; do
        "${P[@]}" -c "DROP TABLE IF EXISTS t" -c "CREATE TABLE t AS SELECT * FROM trip" -c "VACUUM ANALYZE t" \
            -c "SELECT count(*) FROM t WHERE rating = 1" >/dev/null
        milliseconds=$("${P[@]}" -c "EXPLAIN (ANALYZE, TIMING OFF) ${STATEMENT[$form]}" | sed -n 's/.*Execution Time: \([0-9.]*\).*/\1/p')
        echo "$form $milliseconds" >> "$RESULTS"
    done
done
python3 - "$RESULTS" <<'PY'
import collections, statistics, sys
times = collections.defaultdict(list)
for line in open(sys.argv[1]):
    form, value = line.split()
    times[form].append(float(value))
plain = statistics.median(times["plain"])
for form in ("plain", "returning", "array"):
    values = times[form]
    print(f"{form:10} median {statistics.median(values):7.2f} ms  least {min(values):7.2f}  greatest {max(values):7.2f}  ({statistics.median(values) / plain:.2f}x plain)")
PY
