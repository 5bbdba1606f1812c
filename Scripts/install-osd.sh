#!/usr/bin/env bash
# Builds the `osd` command-line tool in release mode and copies it to a folder on your PATH.
#
#   Scripts/install-osd.sh            # to /usr/local/bin (may need sudo)
#   Scripts/install-osd.sh ~/bin      # to a folder of your choice
#
# On Linux the Swift runtime is linked into the binary (--static-swift-stdlib), so it runs on
# machines without a Swift toolchain; it needs the system's SQLite and C++ libraries (libsqlite3,
# libstdc++) at run time.
set -euo pipefail
cd "$(dirname "$0")/.."
destination=${1:-/usr/local/bin}

flags=(-c release)
if [ "$(uname)" = Linux ]; then flags+=(--static-swift-stdlib); fi
swift build "${flags[@]}" --product osd
binary="$(swift build "${flags[@]}" --show-bin-path)/osd"
mkdir -p "$destination"
install -m 0755 "$binary" "$destination/osd"
echo "installed $destination/osd"
"$destination/osd" --help | head -3
