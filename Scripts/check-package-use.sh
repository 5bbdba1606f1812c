#!/usr/bin/env bash
# Makes a package outside this checkout from the README's lines alone, as a newcomer would: the
# `.package(url:from:)` and `.product` lines of "Add it" (a path dependency on this checkout
# standing in for the URL) and the README's example as the program; builds it and runs it.
#
#   Scripts/check-package-use.sh                  # builds everything again, in a folder of its own
#   Scripts/check-package-use.sh --reusing-build  # builds in this checkout's .build folder
#   Scripts/check-package-use.sh --reusing-build -Xswiftc -use-ld=lld   # options for swift build
#   Scripts/check-package-use.sh --type-check     # no package: the lines against this checkout's build
#
# --type-check builds nothing: each product line must name a library product of Package.swift, and
# the example must type-check against the modules this checkout's debug build made (`swift build`
# first). CI runs that (a few seconds; planning a package around this one's dependencies costs
# SwiftPM about 40 s of CPU even with nothing to compile); Scripts/long-checks.sh builds and runs
# the package.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
scratch=()
type_check=0
case "${1:-}" in
    --reusing-build) scratch=(--scratch-path "$ROOT/.build"); shift ;;
    --type-check) type_check=1; shift ;;
    "" | -*) ;;
    *) echo "usage: $0 [--reusing-build | --type-check] [swift build options]" >&2; exit 2 ;;
esac
options=("$@")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/osd-package-use.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# The dependency and product lines of the first Swift block after "**Add it**".
block=$(awk '/^\*\*Add it\*\*/ { section = 1 }
             section && /^```swift/ { inside = 1; next }
             inside && /^```/ { exit }
             inside { print }' "$ROOT/README.md")
dependency=$(grep -E '^\.package\(url:' <<<"$block" | sed -E 's/,[[:space:]]*$//')
products=$(grep -E '^\.product\(name: "OpenSwiftData",' <<<"$block" | sed -E 's|[[:space:]]*//.*$||; s/,[[:space:]]*$//')
[ -n "$dependency" ] && [ -n "$products" ] || { echo "README: the Add it lines were not found" >&2; exit 1; }
url=$(sed -E 's/.*url: "([^"]+)".*/\1/' <<<"$dependency")
# The checkout stands in for the URL: a path whose last component is the URL's package name.
mkdir -p "$WORK/dependencies"
ln -s "$ROOT" "$WORK/dependencies/$(basename "$url")"
dependency=".package(path: \"dependencies/$(basename "$url")\")"

mkdir -p "$WORK/App/Sources/App"
cat >"$WORK/App/Package.swift" <<PACKAGE
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "App",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [
        ${dependency/dependencies/../dependencies},
    ],
    targets: [
        .executableTarget(name: "App", dependencies: [
            $products,
        ]),
    ]
)
PACKAGE

# The README's example, the first Swift block that imports OpenSwiftData.
awk '/^```swift/ { inside = 1; block = ""; next }
     inside && /^```/ { inside = 0; if (block ~ /^import OpenSwiftData/) { printf "%s", block; exit } ; next }
     inside { block = block $0 "\n" }' "$ROOT/README.md" >"$WORK/App/Sources/App/main.swift"
grep -q "ModelContainer" "$WORK/App/Sources/App/main.swift" || { echo "README: the example was not found" >&2; exit 1; }

if [ "$type_check" = 1 ]; then
    echo "== The README's lines against this checkout's build"
    while read -r name; do
        grep -qE "\.library\(name: \"$name\"" "$ROOT/Package.swift" \
            || { echo "README: .product(name: \"$name\") is not a library product of Package.swift" >&2; exit 1; }
        echo "product $name: a library of Package.swift"
    done < <(grep -E '^\.product\(name: "[^"]+", package: "OpenSwiftData"\)' <<<"$block" | sed -E 's/^\.product\(name: "([^"]+)".*/\1/')
    bin=$(cd "$ROOT" && swift build --show-bin-path)
    [ -x "$bin/OpenSwiftDataMacros-tool" ] || { echo "no build to check against: run swift build first" >&2; exit 1; }
    swiftc -typecheck -module-name App -I "$bin/Modules" -I "$ROOT/Sources/CSQLite" \
        -load-plugin-executable "$bin/OpenSwiftDataMacros-tool#OpenSwiftDataMacros" \
        "$WORK/App/Sources/App/main.swift"
    echo "the example type-checks"
    exit 0
fi

echo "== Building a package made from the README's lines"
cat "$WORK/App/Package.swift"
swift build --package-path "$WORK/App" "${scratch[@]}" "${options[@]}" 2>&1 | grep -E "error|warning: .*App/|Compiling App|Build complete" || true
binary="$(swift build --package-path "$WORK/App" "${scratch[@]}" --show-bin-path)/App"
[ -x "$binary" ] || { echo "the package made from the README did not build" >&2; exit 1; }
echo "== Running the README's example"
# The example's store is default.store in the user's application-support folder: a home of its own.
output=$(HOME="$WORK/home" "$binary")
echo "$output"
grep -q "rated 4 or more: [1-9][0-9]* trips" <<<"$output" || { echo "the example printed no trip rated 4 or more (it saves one)" >&2; exit 1; }
