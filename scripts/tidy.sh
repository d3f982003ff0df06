#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy at the root) on the given C++ files, or on the
# .cpp files changed since origin/main (else HEAD~1), with the compile
# commands of BUILD_DIR (default: build).
# Usage: scripts/tidy.sh [-p BUILD_DIR] [FILE...]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
if [ "${1:-}" = "-p" ]; then build=$2; shift 2; fi
tidy=${CLANG_TIDY:-clang-tidy-22}
command -v "$tidy" >/dev/null || { echo "pipewave: $tidy not found (apt-get install clang-tidy-22)" >&2; exit 1; }
cd "$root" || exit 1
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  base=$(git rev-parse -q --verify origin/main || git rev-parse HEAD~1)
  mapfile -t files < <(git diff --name-only "$base" -- '*.cpp' | while read -r f; do [ -f "$f" ] && echo "$f"; done)
fi
[ ${#files[@]} -eq 0 ] && { echo "pipewave: no C++ file to check"; exit 0; }
exec "$tidy" -p "$build" --quiet "${files[@]}"
