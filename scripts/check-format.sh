#!/usr/bin/env bash
# Fails when a C or C++ source of the repository differs from what
# clang-format (LLVM style, .clang-format at the root) makes of it, and
# prints the diff. Fix with: scripts/check-format.sh --fix
# Usage: scripts/check-format.sh [--fix]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
format=${CLANG_FORMAT:-clang-format-22}
if ! command -v "$format" >/dev/null; then
  echo "pipewave: $format not found (scripts/install-deps.sh installs it)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files '*.c' '*.cpp' '*.h' '*.cu' '*.cuh')
if [ "${1:-}" = "--fix" ]; then
  "$format" -i "${files[@]}"
  exit 0
fi
status=0
tmp=$(mktemp)
for f in "${files[@]}"; do
  if ! diff -u "$f" <("$format" "$f") >"$tmp" 2>&1; then
    sed "s#^--- $f#--- a/$f#; s#^+++ /dev/fd/[0-9]*#+++ b/$f (clang-format)#" "$tmp"
    status=1
  fi
done
rm -f "$tmp"
if [ $status -ne 0 ]; then
  echo "pipewave: the files above are not clang-format clean; run scripts/check-format.sh --fix" >&2
else
  echo "pipewave: ${#files[@]} C/C++ files are clang-format clean"
fi
exit $status
