#!/usr/bin/env bash
# Builds the server samples of docs/Postgres.md ("A Hummingbird server", "A Vapor server") as a
# user would copy them: each from its Package.swift and Server.swift, in a package of its own, with
# this checkout in place of the package URL. With OSD_POSTGRES_URL set, also runs each and checks
# that its routes save, upsert and query.
#
#   Scripts/check-server-sample.sh                          # build both
#   Scripts/with-postgres.sh Scripts/check-server-sample.sh # build, run, request
#   Scripts/check-server-sample.sh Vapor                    # one of them
#
# CI does not run it: it builds Hummingbird and Vapor (several minutes each), which the package
# itself does not depend on.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/osd-server-sample.XXXXXX")
SERVER_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

# The checkout stands in for the URL: a path whose last component is the package's name.
mkdir -p "$WORK/dependencies"
ln -s "$ROOT" "$WORK/dependencies/OpenSwiftData"

# The n-th Swift block (from 1) after a heading of docs/Postgres.md.
block() {
    awk -v heading="$1" -v wanted="$2" '
        $0 == heading { section = 1; next }
        section && /^## / { exit }
        section && /^```swift/ { inside = 1; count++; next }
        inside && /^```/ { inside = 0; if (count == wanted) exit; next }
        inside && count == wanted { print }' "$ROOT/docs/Postgres.md"
}

check() {
    local name=$1 package="$WORK/$1-sample"
    echo "== $name: building the sample"
    mkdir -p "$package/Sources/Server"
    block "## A $name server" 1 \
        | sed 's|\.package(url: "https://github.com/OpenSwiftData/OpenSwiftData", from: "[^"]*")|.package(path: "../dependencies/OpenSwiftData")|' \
        >"$package/Package.swift"
    block "## A $name server" 2 >"$package/Sources/Server/Server.swift"
    grep -q 'dependencies/OpenSwiftData' "$package/Package.swift" || { echo "$name: no Package.swift naming OpenSwiftData in docs/Postgres.md" >&2; exit 1; }
    grep -q "@main" "$package/Sources/Server/Server.swift" || { echo "$name: the sample was not found in docs/Postgres.md" >&2; exit 1; }
    swift build --package-path "$package" 2>&1 | grep -E "error|warning: .*Server/|Build complete" || true
    local binary
    binary="$(swift build --package-path "$package" --show-bin-path)/Server"
    [ -x "$binary" ] || { echo "$name: the sample did not build" >&2; exit 1; }
    [ -n "${OSD_POSTGRES_URL:-}" ] || { echo "$name: built. Set OSD_POSTGRES_URL (Scripts/with-postgres.sh) to run it too."; return; }
    exercise "$name" "$binary"
}

exercise() {
    local name=$1 binary=$2
    # The samples listen on port 8080: another server there would answer in their place.
    if curl -s -o /dev/null localhost:8080; then
        echo "something already listens on port 8080: stop it first" >&2
        exit 1
    fi
    echo "== $name: running it against $OSD_POSTGRES_URL"
    # Each sample starts from an empty namespace of its own.
    PGOPTIONS=--client-min-messages=warning psql "$OSD_POSTGRES_URL" -q -c 'DROP SCHEMA IF EXISTS trips CASCADE'
    DATABASE_URL="$OSD_POSTGRES_URL" "$binary" >"$WORK/$name.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 1 100); do
        curl -s -o /dev/null localhost:8080/trips && break
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/$name.log" >&2; echo "$name: the sample stopped" >&2; exit 1; }
        sleep 0.2
    done
    [ "$(curl -s "localhost:8080/trips")" = '{"trips":[]}' ] || { echo "$name: the namespace already holds trips" >&2; exit 1; }
    put() {
        curl -s -o /dev/null -w "%{http_code}" -X PUT -H 'content-type: application/json' -d "$1" localhost:8080/trips
    }
    [ "$(put '{"code":"PAR","name":"Paris","rating":5}')" = 204 ]
    [ "$(put '{"code":"KYO","name":"Kyoto","rating":3}')" = 204 ]
    [ "$(put '{"code":"PAR","name":"Paris again","rating":4}')" = 204 ]
    local best all
    best=$(curl -s "localhost:8080/trips?minimum=4")
    all=$(curl -s "localhost:8080/trips?minimum=0")
    echo "GET /trips?minimum=4: $best"
    echo "GET /trips?minimum=0: $all"
    python3 - "$best" "$all" <<'PYEOF'
import json, sys
best = json.loads(sys.argv[1])["trips"]
every = json.loads(sys.argv[2])["trips"]
assert [(t["code"], t["name"], t["rating"]) for t in best] == [("PAR", "Paris again", 4)], best
assert [t["code"] for t in every] == ["PAR", "KYO"], "the second PUT of PAR updated its row: %r" % every
PYEOF
    # SIGINT stops the server the way Ctrl-C does; it closes the container on its way out.
    kill -INT "$SERVER_PID"
    wait "$SERVER_PID" || true
    SERVER_PID=""
    echo "$name: the sample saves, upserts and queries."
}

for name in ${1:-Hummingbird Vapor}; do check "$name"; done
