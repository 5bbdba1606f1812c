#!/usr/bin/env bash
# Builds the Hummingbird server sample of docs/Postgres.md, as a user would copy it, in a package
# of its own beside this checkout; with OSD_POSTGRES_URL set, also runs it and checks that its
# routes save, upsert and query.
#
#   Scripts/check-server-sample.sh                          # build only
#   Scripts/with-postgres.sh Scripts/check-server-sample.sh # build, run, request
#
# CI does not run it: it builds Hummingbird, which the package itself does not depend on.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/osd-server-sample.XXXXXX")
SERVER_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

mkdir -p "$WORK/Sources/Server"
cat >"$WORK/Package.swift" <<EOF
// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "ServerSample",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: "$ROOT"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
    ],
    targets: [
        .executableTarget(name: "Server", dependencies: [
            .product(name: "OpenSwiftData", package: "$(basename "$ROOT")"),
            .product(name: "OpenSwiftDataPostgres", package: "$(basename "$ROOT")"),
            .product(name: "Hummingbird", package: "hummingbird"),
        ]),
    ]
)
EOF

# The first Swift block after the "A Hummingbird server" heading, as it stands in the guide.
{
    echo "import Foundation"
    awk '/^## A Hummingbird server/ { section = 1 }
         section && /^```swift/ { inside = 1; next }
         inside && /^```/ { exit }
         inside { print }' "$ROOT/docs/Postgres.md"
} >"$WORK/Sources/Server/Server.swift"
if ! grep -q "@main" "$WORK/Sources/Server/Server.swift"; then
    echo "the sample was not found in docs/Postgres.md" >&2
    exit 1
fi

echo "== Building the sample"
swift build --package-path "$WORK" 2>&1 | grep -E "error|warning: .*Server|Build complete" || true
BINARY="$WORK/.build/debug/Server"
[ -x "$BINARY" ] || { echo "the sample did not build" >&2; exit 1; }

if [ -z "${OSD_POSTGRES_URL:-}" ]; then
    echo "Built. Set OSD_POSTGRES_URL (Scripts/with-postgres.sh) to run it too."
    exit 0
fi

# The sample listens on port 8080: another server there would answer in its place.
if curl -s -o /dev/null localhost:8080; then
    echo "something already listens on port 8080: stop it first" >&2
    exit 1
fi
echo "== Running it against $OSD_POSTGRES_URL"
DATABASE_URL="$OSD_POSTGRES_URL" "$BINARY" >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 50); do
    curl -s -o /dev/null localhost:8080/trips && break
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log" >&2; echo "the sample stopped" >&2; exit 1; }
    sleep 0.2
done
[ "$(curl -s "localhost:8080/trips")" = '{"trips":[]}' ] || {
    echo "the database already holds trips: run this under Scripts/with-postgres.sh (a fresh server)" >&2
    exit 1
}
put() {
    curl -s -o /dev/null -w "%{http_code}" -X PUT -H 'content-type: application/json' -d "$1" localhost:8080/trips
}
[ "$(put '{"code":"PAR","name":"Paris","rating":5}')" = 204 ]
[ "$(put '{"code":"KYO","name":"Kyoto","rating":3}')" = 204 ]
[ "$(put '{"code":"PAR","name":"Paris again","rating":4}')" = 204 ]
BEST=$(curl -s "localhost:8080/trips?minimum=4")
ALL=$(curl -s "localhost:8080/trips?minimum=0")
echo "GET /trips?minimum=4: $BEST"
echo "GET /trips?minimum=0: $ALL"
python3 - "$BEST" "$ALL" <<'PYEOF'
import json, sys
best = json.loads(sys.argv[1])["trips"]
every = json.loads(sys.argv[2])["trips"]
assert [(t["code"], t["name"], t["rating"]) for t in best] == [("PAR", "Paris again", 4)], best
assert [t["code"] for t in every] == ["PAR", "KYO"], "the second PUT of PAR updated its row: %r" % every
PYEOF
echo "The sample saves, upserts and queries."
