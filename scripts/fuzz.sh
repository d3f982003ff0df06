#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (with clang-22), one per reader of
# user files, and runs each for a short budget, seeded with the test suite's
# fixtures of its format (and fuzz/seeds/). Any crash, sanitizer report or
# timeout fails the run; the reproducer is left in BUILD_DIR/TARGET/
# (crash-*, oom-*, timeout-*).
#
# Usage: scripts/fuzz.sh [BUILD_DIR] [TARGET...]
#   BUILD_DIR  default: build-fuzz in the source tree
#   TARGET     import stablehlo params npy safetensors checkpoint action-list
#              device profile sched (default: all; import needs libonnx)
# The runs are reproducible: a fixed seed (PIPEWAVE_FUZZ_SEED, default 1) and
# a fixed number of inputs per target (the table below, or
# PIPEWAVE_FUZZ_RUNS); the time budget (the table, or PIPEWAVE_FUZZ_SECONDS
# per target) only caps it, so CI fails the same way on every run of one
# commit. Set PIPEWAVE_FUZZ_SEED=0 for a random seed and PIPEWAVE_FUZZ_RUNS=-1
# to fuzz for the whole budget (docs/reliability.md has the long runs).
# Skips (exit 0, with a message) when clang-22 or libFuzzer is not installed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-fuzz}
shift || true
seed=${PIPEWAVE_FUZZ_SEED:-1}

# target: default inputs, default seconds (about 2.5 minutes in all).
declare -A default_runs=(
  [import]=20000 [stablehlo]=30000 [params]=30000 [sched]=100000 [npy]=30000
  [safetensors]=30000 [checkpoint]=20000 [action-list]=100000
  [device]=100000 [profile]=100000)
declare -A default_seconds=(
  [import]=40 [stablehlo]=30 [params]=10 [sched]=15 [npy]=15 [safetensors]=15
  [checkpoint]=15 [action-list]=10 [device]=10 [profile]=10)
all=(import stablehlo params sched npy safetensors checkpoint action-list device
  profile)
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=("${all[@]}"); fi
for t in "${targets[@]}"; do
  if [ -z "${default_runs[$t]:-}" ]; then
    echo "pipewave: unknown fuzz target '$t' (known: ${all[*]})" >&2
    exit 2
  fi
done

cc=${PIPEWAVE_FUZZ_CC:-clang-22}
cxx=${PIPEWAVE_FUZZ_CXX:-clang++-22}
if ! command -v "$cxx" >/dev/null; then
  echo "pipewave: $cxx not found; skipping the fuzzers (install clang-22 libclang-rt-22-dev)"
  exit 0
fi
if ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char *, unsigned long) { return 0; }' |
    "$cxx" -x c++ -fsanitize=fuzzer - -o /dev/null 2>/dev/null; then
  echo "pipewave: $cxx cannot link libFuzzer; skipping the fuzzers (install libclang-rt-22-dev)"
  exit 0
fi

mkdir -p "$build"
build=$(cd "$build" && pwd)
cmake -G Ninja -S "$root/fuzz" -B "$build" -DCMAKE_C_COMPILER="$cc" \
  -DCMAKE_CXX_COMPILER="$cxx" >"$build/cmake.log" 2>&1 ||
  { cat "$build/cmake.log"; exit 1; }
wanted=()
for t in "${targets[@]}"; do
  if [ "$t" = import ] && ! grep -q 'pipewave-import-fuzzer:' \
      <(ninja -C "$build" -t targets all 2>/dev/null); then
    echo "pipewave: libonnx not found; skipping the ONNX importer fuzzer"
    continue
  fi
  wanted+=("$t")
done
if [ ${#wanted[@]} -eq 0 ]; then exit 0; fi
ninja -C "$build" -j "${PIPEWAVE_FUZZ_JOBS:-2}" \
  $(printf 'pipewave-%s-fuzzer ' "${wanted[@]}")

# split_seeds DIR FILE...: one seed per `// -----` part of each MLIR test.
split_seeds() {
  local out=$1
  shift
  mkdir -p "$out"
  for f in "$@"; do
    awk -v base="$out/$(basename "$f")" '
      /^\/\/ -----/ { part++; next }
      { print > (base "." part) }' part=0 "$f"
  done
}

# seeds TARGET: the seed directories of TARGET (prepared under BUILD_DIR).
seeds() {
  local dir=$build/seeds/$1
  case $1 in
  import)
    echo "$root/test/Import/Onnx/Inputs"
    local nodes=/usr/share/libonnx-testdata/data/node
    if [ -d "$nodes" ] && [ ! -e "$dir/.done" ]; then
      mkdir -p "$dir"
      for model in "$nodes"/*/model.onnx; do
        cp "$model" "$dir/$(basename "$(dirname "$model")").onnx"
      done
      touch "$dir/.done"
    fi
    if [ -d "$dir" ]; then echo "$dir"; fi ;;
  stablehlo)
    rm -rf "$dir"
    mkdir -p "$dir"
    cp "$root"/test/Import/StableHLO/Inputs/*.mlir "$dir/"
    split_seeds "$dir" "$root"/test/Dialect/StableHLO/*.mlir \
      "$root"/test/Conversion/StableHLOToTosa/*.mlir
    echo "$dir" ;;
  sched)
    rm -rf "$dir"
    split_seeds "$dir" "$root"/test/Dialect/Sched/*.mlir \
      "$root"/test/Transforms/sched-*.mlir
    echo "$dir" ;;
  npy)
    rm -rf "$dir"
    mkdir -p "$dir"
    find "$root/test" "$root/examples" -name '*.npy' -exec cp {} "$dir/" \;
    echo "$dir" ;;
  params)
    # Both of the importer's formats: each input is tried as either.
    rm -rf "$dir"
    mkdir -p "$dir"
    find "$root/test" "$root/examples" \( -name '*.npy' -o \
      -name '*.safetensors' \) -exec cp {} "$dir/" \;
    echo "$dir" ;;
  safetensors)
    rm -rf "$dir"
    mkdir -p "$dir"
    find "$root/test" "$root/examples" -name '*.safetensors' \
      -exec cp {} "$dir/" \;
    echo "$dir" ;;
  action-list)
    rm -rf "$dir"
    mkdir -p "$dir"
    cp "$root"/test/Transforms/Inputs/pipe-schedule-*.txt "$dir/"
    echo "$dir" ;;
  device) echo "$root/data/devices" ;;
  profile)
    # The first byte of an input is the profile batch size.
    rm -rf "$dir"
    mkdir -p "$dir"
    for f in "$root"/data/dapple-profiles/*.txt; do
      { printf '\x08'; cat "$f"; } >"$dir/$(basename "$f")"
    done
    echo "$dir" ;;
  esac
  if [ -d "$root/fuzz/seeds/$1" ]; then echo "$root/fuzz/seeds/$1"; fi
}

# The runtime's readers take paths: their fuzzers write each input to a
# scratch file, on a RAM file system where there is one.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
  export TMPDIR=/dev/shm
fi
status=0
for t in "${wanted[@]}"; do
  runs=${PIPEWAVE_FUZZ_RUNS:-${default_runs[$t]}}
  seconds=${PIPEWAVE_FUZZ_SECONDS:-${default_seconds[$t]}}
  echo "== $t fuzzer (seed $seed, $runs inputs, at most ${seconds} s) =="
  mapfile -t dirs < <(seeds "$t")
  work=$build/$t
  mkdir -p "$work/corpus"
  dict=()
  if [ -f "$root/fuzz/dicts/$t.dict" ]; then
    dict=(-dict="$root/fuzz/dicts/$t.dict")
  fi
  # Leak detection is off: MLIR's uniquer and protobuf's descriptor pool keep
  # memory for the process lifetime. User poisoning is off: LLVM's allocators
  # poison and unpoison their slabs only where compiled with AddressSanitizer,
  # and libMLIR is not, so its writes to slabs that inlined code here has
  # poisoned would be false reports.
  set +e
  (cd "$work" &&
    ASAN_OPTIONS=detect_leaks=0:allow_user_poisoning=0${ASAN_OPTIONS:+:$ASAN_OPTIONS} \
      "$build/pipewave-$t-fuzzer" -seed="$seed" -runs="$runs" \
      -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 \
      -max_len=65536 -print_final_stats=1 "${dict[@]}" \
      corpus "${dirs[@]}" >fuzz.log 2>&1)
  code=$?
  set -e
  tail -n 12 "$work/fuzz.log"
  if [ $code -ne 0 ]; then
    echo "pipewave: the $t fuzzer found a crash (exit $code); reproducer in $work" >&2
    status=1
  else
    echo "pipewave: the $t fuzzer ran without a crash"
  fi
done
exit $status
