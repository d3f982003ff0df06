#!/bin/sh
# Compile time of pipe-autodiff on transformer graphs of N blocks
# (bench/autodiff/gen-transformer.py: examples/transformer.mlir with N
# blocks, 64 TOSA operations per block). Each graph is partitioned into S
# stages and outlined; then pipe-autodiff differentiates every stage (full
# backward, and split into I and W), timed by --mlir-timing. Prints, per
# (N, S, split), the operations of @main and the best of REPEAT wall times
# of the pass.
#
#   bench/autodiff/run.sh BUILD_DIR [REPEAT] [N ...]
#
# Defaults: REPEAT 3, N = 12 24 48.
set -eu
build=${1:?usage: run.sh BUILD_DIR [REPEAT] [N ...]}
shift
repeat=${1:-3}
[ $# -gt 0 ] && shift
[ $# -eq 0 ] && set -- 12 24 48
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-7s %-7s %-6s %-6s %s\n' blocks ops stages split "pipe-autodiff (s)"
for n in "$@"; do
  python3 "$here/gen-transformer.py" --blocks "$n" > "$work/t$n.mlir"
  ops=$(grep -c ' = tosa\.\| = "tosa\.' "$work/t$n.mlir")
  for s in 1 4; do
    for split in false true; do
      best=
      i=0
      while [ $i -lt "$repeat" ]; do
        t=$("$build/bin/pipewave-opt" "$work/t$n.mlir" \
              --pipe-partition="num-stages=$s strategy=balanced" \
              --pipe-outline-stages --pipe-autodiff="split=$split" \
              --mlir-timing -o /dev/null 2>&1 |
            awk '/PipeAutodiff/ { print $1 }')
        best=$(awk -v a="$best" -v b="$t" \
                 'BEGIN { if (a == "" || b + 0 < a + 0) print b; else print a }')
        i=$((i + 1))
      done
      printf '%-7s %-7s %-6s %-6s %s\n' "$n" "$ops" "$s" "$split" "$best"
    done
  done
done
