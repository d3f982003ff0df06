#!/usr/bin/env bash
# Builds the ONNX importer's libFuzzer target (fuzz/, with clang-22) and runs
# it for a short time budget, seeded with the ONNX fixtures of the test suite.
# Any crash, sanitizer report or leak fails the run; the reproducer is left
# in the build directory (crash-*, leak-*, oom-*, timeout-*).
#
# Usage: scripts/fuzz-import.sh [BUILD_DIR] [SECONDS]
#   BUILD_DIR  default: build-fuzz in the source tree
#   SECONDS    fuzzing budget, default 60 (PIPEWAVE_FUZZ_SECONDS)
# The run is reproducible: a fixed seed (PIPEWAVE_FUZZ_SEED, default 1) and a
# fixed number of inputs (PIPEWAVE_FUZZ_RUNS, default 20000; the time budget
# only caps it), so CI fails the same way on every run of one commit. Set
# PIPEWAVE_FUZZ_SEED=0 for a random seed and PIPEWAVE_FUZZ_RUNS=-1 to fuzz
# for the whole budget.
# Skips (exit 0, with a message) when clang-22 or libFuzzer is not installed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-fuzz}
seconds=${2:-${PIPEWAVE_FUZZ_SECONDS:-60}}
seed=${PIPEWAVE_FUZZ_SEED:-1}
runs=${PIPEWAVE_FUZZ_RUNS:-20000}

cc=${PIPEWAVE_FUZZ_CC:-clang-22}
cxx=${PIPEWAVE_FUZZ_CXX:-clang++-22}
if ! command -v "$cxx" >/dev/null; then
  echo "pipewave: $cxx not found; skipping the importer fuzzer (install clang-22 libclang-rt-22-dev)"
  exit 0
fi
if ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char *, unsigned long) { return 0; }' |
    "$cxx" -x c++ -fsanitize=fuzzer - -o /dev/null 2>/dev/null; then
  echo "pipewave: $cxx cannot link libFuzzer; skipping the importer fuzzer (install libclang-rt-22-dev)"
  exit 0
fi

echo "== ONNX importer fuzzer (seed $seed, $runs inputs, at most ${seconds} s) =="
mkdir -p "$build"
build=$(cd "$build" && pwd)
cmake -G Ninja -S "$root/fuzz" -B "$build" -DCMAKE_C_COMPILER="$cc" \
  -DCMAKE_CXX_COMPILER="$cxx" >"$build/cmake.log" 2>&1 ||
  { cat "$build/cmake.log"; exit 1; }
ninja -C "$build" -j "${PIPEWAVE_FUZZ_JOBS:-2}" pipewave-import-fuzzer

# Seeds: the committed fixtures and, where Debian's libonnx-testdata is
# installed, ONNX's node test models (one per op form); the corpus grows in
# the build directory.
corpus=$build/corpus
mkdir -p "$corpus"
seeds=("$root/test/Import/Onnx/Inputs")
nodes=/usr/share/libonnx-testdata/data/node
if [ -d "$nodes" ] && [ ! -e "$build/seeds/.done" ]; then
  mkdir -p "$build/seeds"
  for model in "$nodes"/*/model.onnx; do
    cp "$model" "$build/seeds/$(basename "$(dirname "$model")").onnx"
  done
  touch "$build/seeds/.done"
fi
if [ -d "$build/seeds" ]; then seeds+=("$build/seeds"); fi
cd "$build"
# Leak detection is off: MLIR's uniquer and protobuf's descriptor pool keep
# memory for the process lifetime.
set +e
ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS} \
  ./pipewave-import-fuzzer -seed="$seed" -runs="$runs" \
  -max_total_time="$seconds" -timeout=20 \
  -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
  "$corpus" "${seeds[@]}" >fuzz.log 2>&1
status=$?
set -e
tail -n 30 fuzz.log
if [ "$status" -ne 0 ]; then
  echo "pipewave: the importer fuzzer found a crash (exit $status); reproducer in $build" >&2
  exit 1
fi
echo "pipewave: the importer fuzzer ran without a crash (seed $seed, at most $runs inputs in ${seconds} s)"
