#!/bin/sh
# The tables of docs/bench.md "With the calibrated device" and "`auto` with
# the calibrated device", in one run, for a quiet machine (about 19 minutes
# on 2 idle cores, most of it compiling: transformer256 takes about 30 s of
# CPU to compile for a split backward):
#
#   1. pipewave-calibrate: a fresh calibration of this machine (the cached
#      device "host", or the cache PIPEWAVE_CACHE_DIR names);
#   2. bench/stage-actions/run.sh: every stage function's F, B, I, W timed
#      on its own against the cost model (mlp, transformer, mlp512,
#      transformer256; 2 stages, 1F1B and ZB-H1);
#   3. bench/sim-vs-measured/run.sh on the examples (20 steps; 2-rank rows
#      and the 4-rank rows, which the simulator stretches for sharing the
#      cores) and on mlp512 and transformer256 (10 steps, 2 ranks);
#   4. bench/auto-schedule/run.py: auto's first 8 candidates for the
#      examples and its first 4 for the larger models, measured;
#   5. pipewave-calibrate --check host: whether the machine still ran at
#      the calibration's speed at the end (a shared machine's speed can
#      move by 2x within minutes, docs/bench.md; the sim-vs-measured
#      tables' last column shows the same for each row).
#
#   bench/sim-vs-measured/calibrated-tables.sh BUILD_DIR [OUT_DIR]
#
# Writes OUT_DIR/{calibrate.log,actions.md,sim-small.md,sim-large.md,
# auto.md,auto.log,check.log} (default OUT_DIR: calibrated-tables) and prints the
# load average before every part: on a loaded machine the absolute times
# (and so the ratios) measure the other processes, not pipewave.
set -eu
build=${1:?usage: calibrated-tables.sh BUILD_DIR [OUT_DIR]}
out=${2:-calibrated-tables}
here=$(cd "$(dirname "$0")" && pwd)
root="$here/../.."
mkdir -p "$out"
export OPENBLAS_NUM_THREADS=1
load() { echo "[$(date -u +%H:%M:%S)] $1; load average $(cut -d' ' -f1-3 /proc/loadavg)"; }

load "calibrating"
"$build/bin/pipewave-calibrate" > "$out/calibrate.log" 2>&1
load "per-action table"
"$root/bench/stage-actions/run.sh" "$build" host 30 > "$out/actions.md"
load "sim-vs-measured, examples"
"$here/run.sh" "$build" 20 host "mlp transformer" > "$out/sim-small.md"
load "sim-vs-measured, mlp512 and transformer256"
"$here/run.sh" "$build" 10 host "mlp512 transformer256" > "$out/sim-large.md"
load "auto, examples"
python3 "$root/bench/auto-schedule/run.py" "$build" --device host \
  --models mlp,transformer --top 8 --steps 30 --repeat 2 \
  > "$out/auto.md" 2> "$out/auto.log"
load "auto, mlp512 and transformer256"
python3 "$root/bench/auto-schedule/run.py" "$build" --device host \
  --models mlp512,transformer256 --top 4 --steps 8 --repeat 2 \
  >> "$out/auto.md" 2>> "$out/auto.log"
load "checking the calibration"
"$build/bin/pipewave-calibrate" --check host > "$out/check.log" 2>&1
load "done"
for f in actions sim-small sim-large auto; do
  echo
  echo "== $out/$f.md"
  cat "$out/$f.md"
done
echo
tail -n 2 "$out/check.log"
