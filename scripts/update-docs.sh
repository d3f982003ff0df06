#!/usr/bin/env bash
# Regenerates the dialect and pass reference in docs/generated/ from the
# TableGen sources (the lit test Docs/generated.test checks they match).
# Usage: scripts/update-docs.sh [BUILD_DIR]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
cmake --build "$build" --target pipewave-doc
for doc in PipeDialect SchedDialect PipePasses SchedPasses ConversionPasses \
    StablehloDialect ChloDialect StableHLOToTosaPasses; do
  cp "$build/docs/$doc.md" "$root/docs/generated/$doc.md"
done
echo "updated docs/generated/"
