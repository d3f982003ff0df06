#!/usr/bin/env bash
# Soak test of checkpoints and resume (not in CI; docs/reliability.md has
# its figures): trains examples/transformer.mlir on 4 ranks (4 stages, 1F1B,
# Adam) for STEPS steps with a checkpoint every EVERY steps, killing one
# rank (SIGKILL) at a random moment KILLS times and resuming from the latest
# complete checkpoint each time; then compares the final parameters,
# optimizer state and the losses of every step with an uninterrupted run of
# the same STEPS steps: they must be identical (bit for bit).
#
# Usage: scripts/soak.sh BUILD_DIR [STEPS] [KILLS] [EVERY] [SEED]
#   defaults: 10000 steps, 20 kills, a checkpoint every 100 steps, seed 1
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: scripts/soak.sh BUILD_DIR [STEPS] [KILLS] [EVERY] [SEED]}" && pwd)
steps=${2:-10000}
kills=${3:-20}
every=${4:-100}
RANDOM=${5:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tool=$build/unittests/Runtime/pw-test-tool

"$build/bin/pipewave-compile" "$root/examples/transformer.mlir" \
  -o "$work/t" --stages 4 --schedule 1f1b --microbatches 4 --quiet
python3 "$root/scripts/make-npy.py" "$work/x.npy" 4 8 32
python3 "$root/scripts/make-npy.py" "$work/y.npy" 4 8 32
args=(-n 4 "$work/t" --data "x=$work/x.npy" --data "y=$work/y.npy"
  --optimizer adam --lr 0.001 --checkpoint-every "$every")

echo "== uninterrupted: $steps steps"
start=$(date +%s)
"$build/bin/pipewave-run" "${args[@]}" --steps "$steps" \
  --checkpoint-dir "$work/a" --log-json "$work/a.jsonl" >/dev/null
base=$(($(date +%s) - start))
echo "   ${base} s"

# latest STEP_DIR: the step of the latest complete checkpoint (0 if none).
latest() {
  local best=0 d
  for d in "$1"/step-*/manifest.json; do
    [ -e "$d" ] || continue
    d=${d%/manifest.json}
    d=$((10#${d##*/step-}))
    [ "$d" -gt "$best" ] && best=$d
  done
  echo "$best"
}

echo "== $kills kills at random moments, resumed each time"
done_kills=0
resumes=0
start=$(date +%s)
while true; do
  at=$(latest "$work/b")
  left=$((steps - at))
  [ "$left" -gt 0 ] || break
  resume=()
  [ "$at" -gt 0 ] && resume=(--resume)
  "$build/bin/pipewave-run" "${args[@]}" --steps "$left" "${resume[@]}" \
    --checkpoint-dir "$work/b" --log-json "$work/b.jsonl" \
    >"$work/run.out" 2>&1 &
  run=$!
  if [ "$done_kills" -lt "$kills" ]; then
    # A random moment within the time the remaining steps take.
    wait_ms=$((RANDOM % (base * 1000 * left / steps + 1) + 200))
    sleep "$(printf '%d.%03d' $((wait_ms / 1000)) $((wait_ms % 1000)))"
    victim=$(pgrep -f -- "^$work/t " | shuf -n 1 --random-source=<(yes "$RANDOM") || true)
    if [ -n "$victim" ]; then
      kill -KILL "$victim" 2>/dev/null || true
      done_kills=$((done_kills + 1))
      echo "   kill $done_kills: a rank at about step $(grep -o '^step [0-9]*' "$work/run.out" | tail -n 1 | cut -d' ' -f2)"
    fi
  fi
  wait "$run" || true
  resumes=$((resumes + 1))
done
echo "   $resumes runs, $(($(date +%s) - start)) s"

echo "== compare"
"$tool" compare-logs "$work/a.jsonl" "$work/b.jsonl" 0
echo
final=$(printf 'step-%06d' "$steps")
"$tool" compare-checkpoints "$work/a/$final" "$work/b/$final" 0
