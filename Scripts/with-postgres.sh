#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL server: Scripts/with-postgres.sh CMD [ARG...]
#
# Creates a cluster in a temporary directory (initdb, as an unprivileged user when run as root),
# starts it on a free loopback port, exports OSD_POSTGRES_URL (postgres://osd@127.0.0.1:PORT/osd),
# runs CMD, then stops the server and removes its files, whatever CMD did. Exits with CMD's status.
# The osd role is trusted; a second role, osd_password, must sign in with its password (SCRAM), and
# OSD_POSTGRES_PASSWORD_URL names it with its password, for the tests of credentials. When openssl
# is installed the server also speaks TLS, with a certificate for localhost signed by a throwaway
# authority whose certificate OSD_POSTGRES_CA names (clients choose: TLS stays optional).
# OSD_POSTGRES_SOCKET_URL names the server through its Unix-domain socket.
# With OSD_POSTGRES_RESTARTABLE=1 it also exports OSD_POSTGRES_RESTART, a command that crashes the
# server (immediate stop) and starts it again, for the restart tests: run them alone on their
# server, since a restart fails every other test's connections.
# Needs Debian's `postgresql` package (or initdb and pg_ctl on PATH).
set -euo pipefail

if [ "$#" -eq 0 ]; then
    echo "usage: $0 CMD [ARG...]" >&2
    exit 64
fi

find_tool() {
    if command -v "$1" >/dev/null 2>&1; then command -v "$1"; return; fi
    local candidate
    for candidate in /usr/lib/postgresql/*/bin/"$1"; do
        if [ -x "$candidate" ]; then echo "$candidate"; return; fi
    done
    echo "with-postgres: $1 not found; install PostgreSQL (apt-get install postgresql)" >&2
    exit 69
}
INITDB=$(find_tool initdb)
PG_CTL=$(find_tool pg_ctl)
CREATEDB=$(find_tool createdb)
PSQL=$(find_tool psql)

# A free loopback port: bind to port 0 and read what the system chose.
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')

DIR=$(mktemp -d "${TMPDIR:-/tmp}/osd-postgres.XXXXXX")
chmod 755 "$DIR"
DATA="$DIR/data"
LOG="$DIR/server.log"

# PostgreSQL refuses to run as root: run the server as an unprivileged user then.
AS_SERVER=""
if [ "$(id -u)" -eq 0 ]; then
    SERVER_USER=postgres
    id "$SERVER_USER" >/dev/null 2>&1 || SERVER_USER=nobody
    chown "$SERVER_USER" "$DIR"
    AS_SERVER="runuser -u $SERVER_USER --"
fi
as_server() { $AS_SERVER "$@"; }
OPTIONS="-p $PORT -k $DIR -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=400"

cleanup() {
    as_server "$PG_CTL" -D "$DATA" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$DIR"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The cluster is thrown away: initdb does not wait for its files to reach the disk, nor does the
# server (fsync=off above).
as_server "$INITDB" -D "$DATA" -U osd --auth=trust --encoding=UTF8 --locale=C.UTF-8 --no-sync >"$DIR/initdb.log" 2>&1 || {
    cat "$DIR/initdb.log" >&2
    exit 70
}
# TLS: a throwaway authority signs the server's certificate, valid for the name localhost only (so
# that a client checking host names refuses it at 127.0.0.1).
if command -v openssl >/dev/null 2>&1; then
    (
        cd "$DIR"
        openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=OpenSwiftData test CA" \
            -keyout ca.key -out ca.pem >/dev/null 2>&1
        openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout server.key -out server.csr >/dev/null 2>&1
        printf 'subjectAltName=DNS:localhost\n' >server.ext
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
            -extfile server.ext -out server.pem >/dev/null 2>&1
        chmod 644 ca.pem server.pem
        chmod 600 server.key
    ) && [ -f "$DIR/server.pem" ] && {
        [ -n "$AS_SERVER" ] && chown "$SERVER_USER" "$DIR/server.key" "$DIR/server.pem"
        OPTIONS="$OPTIONS -c ssl=on -c ssl_cert_file=$DIR/server.pem -c ssl_key_file=$DIR/server.key"
        export OSD_POSTGRES_CA="$DIR/ca.pem"
    }
fi

# The first matching line wins: osd_password signs in with its password, everyone else is trusted.
as_server bash -c "{ echo 'host all osd_password 127.0.0.1/32 scram-sha-256'; cat '$DATA/pg_hba.conf'; } >'$DATA/pg_hba.new' && mv '$DATA/pg_hba.new' '$DATA/pg_hba.conf'"
as_server "$PG_CTL" -D "$DATA" -l "$LOG" -w -t 30 -o "$OPTIONS" start >/dev/null || {
    cat "$LOG" >&2
    exit 70
}
as_server "$CREATEDB" -h 127.0.0.1 -p "$PORT" -U osd osd
PASSWORD=$(python3 -c 'import secrets; print(secrets.token_hex(12))')
as_server "$PSQL" -h 127.0.0.1 -p "$PORT" -U osd -d osd -q -v ON_ERROR_STOP=1 \
    -c "CREATE ROLE osd_password LOGIN PASSWORD '$PASSWORD'" -c "GRANT CREATE ON DATABASE osd TO osd_password" >/dev/null

export OSD_POSTGRES_URL="postgres://osd@127.0.0.1:$PORT/osd"
export OSD_POSTGRES_PASSWORD_URL="postgres://osd_password:$PASSWORD@127.0.0.1:$PORT/osd"
# The same server through its Unix-domain socket (libpq's form: the socket's directory as host).
export OSD_POSTGRES_SOCKET_URL="postgres://osd@/osd?host=$DIR&port=$PORT"
if [ "${OSD_POSTGRES_RESTARTABLE:-}" = 1 ]; then
    {
        echo '#!/usr/bin/env bash'
        echo 'set -e'
        # The server must hold no descriptor of the caller's open (a test runner's event stream).
        echo 'for fd in $(ls /proc/$$/fd); do if [ "$fd" -gt 2 ]; then eval "exec $fd>&-"; fi; done'
        echo "$AS_SERVER \"$PG_CTL\" -D \"$DATA\" -m immediate stop </dev/null >/dev/null 2>&1"
        # OSD_POSTGRES_DOWN_SECONDS keeps the server down that long before it starts again.
        echo 'sleep "${OSD_POSTGRES_DOWN_SECONDS:-0}"'
        echo "$AS_SERVER \"$PG_CTL\" -D \"$DATA\" -l \"$LOG\" -w -t 30 -o \"$OPTIONS\" start </dev/null >/dev/null 2>&1"
    } >"$DIR/restart"
    chmod 755 "$DIR/restart"
    export OSD_POSTGRES_RESTART="$DIR/restart"
fi
set +e
"$@"
STATUS=$?
set -e
exit "$STATUS"
