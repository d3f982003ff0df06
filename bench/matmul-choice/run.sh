#!/bin/sh
# --matmul=auto (each matmul on the kernel a calibration of this machine
# measured faster for its class) against --matmul=blas (OpenBLAS) and
# --matmul=vector (MLIR tiling and vectorization), median step time:
#   mlp512-1rank   scripts/gen-mlp.py --layers 8 --width 512 --batch 256
#                  (512 in and out), 1 rank, 8 microbatches accumulated
#   mlp512-2rank   the same, 2 ranks, 1F1B, 8 microbatches
#   transformer-1rank, transformer-2rank
#                  examples/transformer.mlir, 1 rank / 2 ranks 1F1B, 4
#                  microbatches
# SGD, single-threaded OpenBLAS. The three builds alternate in every round
# (ABAB...); per configuration it prints every run, then the medians over
# the rounds and auto / the faster of blas and vector. The load average is
# printed at the start and the end.
#
#   bench/matmul-choice/run.sh BUILD_DIR [STEPS] [ROUNDS] [DEVICE_FILE]
#
# Defaults: 20 steps, 3 rounds. auto decides by the calibration in
# DEVICE_FILE (a device file written by pipewave-calibrate) or, without
# one, by a fresh `pipewave-calibrate --no-comm` run (about 2 minutes)
# into a cache of its own; the choice it made per class is printed.
set -eu
build=${1:?usage: run.sh BUILD_DIR [STEPS] [ROUNDS] [DEVICE_FILE]}
steps=${2:-20}
rounds=${3:-3}
device=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
# auto reads the calibration cached as "host" here, nowhere else.
export PIPEWAVE_CACHE_DIR="$work/cache"
mkdir -p "$work/cache/devices"
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "$device" ]; then
  cp "$device" "$work/cache/devices/host.json"
  echo "calibration: $device"
else
  "$build/bin/pipewave-calibrate" --no-comm 2> "$work/calibrate.log" ||
    { cat "$work/calibrate.log"; exit 1; }
  echo "calibration: pipewave-calibrate --no-comm, this run"
fi
python3 - "$work/cache/devices/host.json" <<'PY'
import json, sys
print("  class          M x    K x    N")
for p in json.load(open(sys.argv[1]))["calibration"].get("matmulKernels", []):
    print("  %-12s %4d x %4d x %4d  vector %8.3f ms  blas %8.3f ms  -> %s" % (
        p["class"], p["m"], p["k"], p["n"], 1e3 * p["vectorSeconds"],
        1e3 * p["blasSeconds"], p["kernel"]))
PY

python3 "$root/scripts/gen-mlp.py" --layers 8 --width 512 --batch 256 \
  --in 512 --out 512 > "$work/mlp512.mlir"
python3 "$root/scripts/make-npy.py" "$work/mlp512.x.npy" 256 512
python3 "$root/scripts/make-npy.py" "$work/mlp512.y.npy" 256 512
cp "$root/examples/transformer.mlir" "$work/transformer.mlir"
python3 "$root/scripts/make-npy.py" "$work/transformer.x.npy" 4 8 32
python3 "$root/scripts/make-npy.py" "$work/transformer.y.npy" 4 8 32

configs="mlp512-1rank mlp512-2rank transformer-1rank transformer-2rank"
# CONFIG: prints "MODEL RANKS MICROBATCHES"
shape() {
  case $1 in
    mlp512-1rank) echo mlp512 1 8 ;;
    mlp512-2rank) echo mlp512 2 8 ;;
    transformer-1rank) echo transformer 1 4 ;;
    transformer-2rank) echo transformer 2 4 ;;
  esac
}
for config in $configs; do
  set -- $(shape "$config")
  for matmul in blas vector auto; do
    "$build/bin/pipewave-compile" "$work/$1.mlir" -o "$work/$config-$matmul" \
      --stages "$2" --microbatches "$3" --schedule 1f1b --matmul=$matmul \
      --quiet --summary-json "$work/$config-$matmul.json"
  done
  python3 -c 'import json, sys; print("%s: auto = %s" % (sys.argv[2], json.load(open(sys.argv[1]))["matmul"]))' \
    "$work/$config-auto.json" "$config"
done

# CONFIG MATMUL: prints the median step in ms (steps 2-STEPS)
run() {
  set -- "$1" "$2" $(shape "$1")
  if [ "$4" = 1 ]; then
    set -- "$work/$1-$2"
  else
    set -- "$build/bin/pipewave-run" -n "$4" "$work/$1-$2"
  fi
  "$@" --data x="$work/$model.x.npy" --data y="$work/$model.y.npy" \
    --steps "$steps" --optimizer sgd --lr 0.01 > "$work/out.txt" 2>&1
  awk '/^steps/ { for (i = 1; i < NF; i++) if ($i == "median") median = $(i + 1) }
       END { printf "%s\n", median }' "$work/out.txt"
}
for config in $configs; do
  set -- $(shape "$config")
  model=$1
  : > "$work/$config.results"
  for round in $(seq "$rounds"); do
    for matmul in blas vector auto; do
      t=$(run "$config" "$matmul")
      printf "%-18s round %d  %-6s median step %8.2f ms\n" "$config" "$round" "$matmul" "$t"
      echo "$matmul $t" >> "$work/$config.results"
    done
  done
  awk -v config="$config" '
    { t[$1] = t[$1] " " $2 }
    function median(list,   n, a, i, j, x) {
      n = split(list, a, " ")
      for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > x + 0; j--) a[j + 1] = a[j]; a[j + 1] = x }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    END {
      b = median(t["blas"]); v = median(t["vector"]); a = median(t["auto"])
      best = b < v ? b : v
      printf "%-18s medians: blas %8.2f ms  vector %8.2f ms  auto %8.2f ms  auto / best %.3f (best: %s)\n",
        config, b, v, a, a / best, b < v ? "blas" : "vector"
    }' "$work/$config.results"
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
