#!/bin/sh
# Stage workspace (pipe-plan-workspace) against per-call allocation: minor
# page faults per step after step 1 and the median step time, on the MLP of
# issue 16 (8 layers 512x512 with ReLU, MSE, batch 256, SGD, --matmul=blas),
# 1 rank with 8 microbatches accumulated and 2 ranks 1F1B with 8
# microbatches. Three builds/settings alternate in every round (ABAB...):
#   no-workspace          pipewave-compile --no-workspace, the runtime's
#                         default malloc policy (keepFreedHostMemory)
#   no-workspace,glibc    the same with glibc's default thresholds
#                         (MALLOC_MMAP_THRESHOLD_/MALLOC_TRIM_THRESHOLD_ =
#                         128 KiB, which override the runtime's setting)
#   workspace,glibc       the default build (one workspace per rank), with
#                         glibc's default thresholds: the workspace alone
#   workspace             the default build and runtime
# Prints one line per run: median step (ms, steps 2-STEPS), the most minor
# faults per step over the ranks (--print-memory) and the workspace bytes
# of rank 0, then the medians over the rounds; the load average at the start
# and the end.
#
#   bench/workspace/run.sh BUILD_DIR [STEPS] [ROUNDS]
#
# Defaults: 20 steps, 3 rounds. Single-threaded OpenBLAS.
set -eu
build=${1:?usage: run.sh BUILD_DIR [STEPS] [ROUNDS]}
steps=${2:-20}
rounds=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
python3 "$here/../../scripts/gen-mlp.py" --layers 8 --width 512 --batch 256 \
  --in 512 --out 512 > "$work/mlp.mlir"
python3 "$here/../../scripts/make-npy.py" "$work/x.npy" 256 512
python3 "$here/../../scripts/make-npy.py" "$work/y.npy" 256 512
echo "MLP: 8 layers of 512x512, batch 256, SGD, --matmul=blas, $steps steps, $rounds rounds"
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
for ws in workspace no-workspace; do
  flag=
  [ "$ws" = no-workspace ] && flag=--no-workspace
  "$build/bin/pipewave-compile" "$work/mlp.mlir" -o "$work/1rank-$ws" \
    --stages 1 --microbatches 8 --matmul=blas $flag
  "$build/bin/pipewave-compile" "$work/mlp.mlir" -o "$work/2rank-$ws" \
    --stages 2 --microbatches 8 --schedule 1f1b --matmul=blas $flag
done
# CONFIG BUILD GLIBC: prints "median faults workspace"
run() {
  config=$1 binary=$work/$1-$2
  if [ "$3" = glibc ]; then
    set -- env MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=131072
  else
    set -- env
  fi
  if [ "$config" = 1rank ]; then
    "$@" "$binary" --data x="$work/x.npy" --data y="$work/y.npy" \
      --steps "$steps" --optimizer sgd --lr 0.01 --print-memory > "$work/out.txt" 2>&1
  else
    "$@" "$build/bin/pipewave-run" -n 2 "$binary" --data x="$work/x.npy" \
      --data y="$work/y.npy" --steps "$steps" --optimizer sgd --lr 0.01 \
      --print-memory > "$work/out.txt" 2>&1
  fi
  awk '/^steps/ { for (i = 1; i < NF; i++) if ($i == "median") median = $(i + 1) }
       /^page faults/ { f = $5 + 0; if (f > faults) faults = f }
       /^workspace: rank 0/ { ws = $4 }
       END { printf "%s %s %s\n", median, faults + 0, ws }' "$work/out.txt"
}
for config in 1rank 2rank; do
  : > "$work/$config.results"
  for round in $(seq "$rounds"); do
    for variant in no-workspace:default no-workspace:glibc workspace:glibc workspace:default; do
      build_name=${variant%%:*} policy=${variant#*:}
      set -- $(run "$config" "$build_name" "$policy")
      printf "%-6s round %d  %-24s median %8.1f ms  faults/step %9.1f  workspace %s bytes\n" \
        "$config" "$round" "$build_name,$policy" "$1" "$2" "$3"
      echo "$build_name,$policy $1 $2" >> "$work/$config.results"
    done
  done
  # Medians over the rounds, and each variant's median step over that of
  # no-workspace,default.
  sort "$work/$config.results" | awk -v config="$config" '
    { t[$1] = t[$1] " " $2; f[$1] = f[$1] " " $3 }
    function median(list,   n, a, i, j, x) {
      n = split(list, a, " ")
      for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > x + 0; j--) a[j + 1] = a[j]; a[j + 1] = x }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    END {
      base = median(t["no-workspace,default"])
      for (k in t)
        printf "%-6s %-24s median step %8.1f ms (x%.2f of no-workspace,default)  faults/step %9.1f\n",
          config, k, median(t[k]), median(t[k]) / base, median(f[k])
    }' | sort
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
