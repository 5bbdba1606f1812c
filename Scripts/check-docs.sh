#!/usr/bin/env bash
# Builds the DocC documentation of the OpenSwiftData and OpenSwiftDataToolbox modules (their .docc catalogs
# and every public symbol's comment) and fails on any warning: an unresolved symbol link, a
# parameter the comment names wrongly, an article the catalog does not reach.
#
#   Scripts/check-docs.sh [OUTPUT_DIR]      # default: .build/docs
set -euo pipefail
cd "$(dirname "$0")/.."
OUTPUT=${1:-.build/docs}

swift package --allow-writing-to-directory "$OUTPUT" generate-documentation --target OpenSwiftData --target OpenSwiftDataToolbox \
    --output-path "$OUTPUT" --warnings-as-errors
echo "check-docs: the documentation of OpenSwiftData and OpenSwiftDataToolbox built without warnings in $OUTPUT"
