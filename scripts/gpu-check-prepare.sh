#!/usr/bin/env bash
# Prepares, on the build machine, everything scripts/gpu-check.sh runs on a
# GPU machine that has no MLIR, no compiler and no network.
#
# Usage: scripts/gpu-check-prepare.sh BUILD OUT
#
# BUILD is a pipewave build that found the CUDA toolkit (pipewave-compile,
# libpipewave_runtime_cuda, libpipewave_cuda). OUT (created; kept small:
# the compiled binaries travel xz-compressed) gets
#   bin.tar.xz      every case compiled with --target cuda, stripped, plus
#                   PipewaveCudaDeviceTests and pipewave-cuda-sgemm-bench
#   lib/            libpipewave_cuda.so (cuBLAS, cudart and NCCL are found on
#                   the GPU machine: see gpu-check.sh)
#   data/MODEL/     --init and --data files of each model
#   ref/CASE.json   the CPU runtime's losses of the same run (5 Adam steps)
#   ref/CASE.sim    sched-simulate device=h200's prediction for the case
#   cases.tsv       one line per case: name, kind, model, ranks, tolerance,
#                   reference, run arguments
#   calibrate/      pipewave-calibrate --target cuda --compile-only's models
#                   (their binaries in bin.tar.xz under calibrate/; their
#                   data is written where they run)
#
# Cases: both examples, the ONNX GPT fixture and the StableHLO MLP fixture,
# each with every schedule (gpipe, 1f1b, interleaved, hanayo, zb-h1, zb-v)
# and 1 or 2 data-parallel replicas (kind "parity", fp32, 1e-5 relative);
# the examples with --precision tf32 and bf16 (1F1B, R=1); the MLP as one
# stage (graphs on/off, NCCL at world size 1); a wide MLP (matmul share);
# kind "sim": the rows of bench/sim-vs-measured (the examples, mlp512 and
# transformer256), whose runs and traces bench/sim-vs-measured/gpu-table.sh
# compares with the simulator.
# PW_GPU_CHECK_MODELS / PW_GPU_CHECK_SCHEDULES (space-separated) restrict
# the parity cases, e.g. for a quick try.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD OUT" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
compile="$build/bin/pipewave-compile"
run="$build/bin/pipewave-run"
opt="$build/bin/pipewave-opt"
for tool in "$compile" "$run" "$opt"; do
  [ -x "$tool" ] || { echo "gpu-check-prepare: $tool missing (build pipewave first)" >&2; exit 1; }
done
if [ ! -f "$build/lib/pipewave_runtime_cuda.link" ]; then
  echo "gpu-check-prepare: $build has no CUDA runtime (CMake found no CUDA toolkit)" >&2
  exit 1
fi
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The CPU references of an earlier preparation stay (they depend on the
# compiler, not on the runtime): remove OUT/ref to make them again.
rm -rf "$out/bin" "$out/lib" "$out/data" "$out/bin.tar.xz"
mkdir -p "$work/bin" "$out/lib" "$out/data" "$out/ref"
cp "$build/lib/libpipewave_cuda.so" "$out/lib/"
# The NCCL backend's transport, loaded at run time (NCCL comes from there).
[ -f "$build/lib/libpipewave_nccl.so" ] && cp "$build/lib/libpipewave_nccl.so" "$out/lib/"
for extra in PipewaveCudaDeviceTests pipewave-cuda-sgemm-bench; do
  [ -x "$build/bin/$extra" ] && strip -o "$work/bin/$extra" "$build/bin/$extra"
done

# --- Models: source, compile flags, data and init files, batch size. ---
inputs="$root/test/e2e/Inputs/torch/make_inputs.py"
onnx="$root/test/Import/Onnx/Inputs/torch"
shlo="$root/test/Import/StableHLO/Inputs"
"$python" "$inputs" "$root/examples/mlp.mlir" "$out/data/mlp" >/dev/null
"$python" "$inputs" "$root/examples/transformer.mlir" "$out/data/transformer" >/dev/null
mkdir -p "$out/data/onnx-gpt" "$out/data/shlo-mlp"
cp "$onnx/gpt-idx.npy" "$onnx/gpt-targets.npy" "$out/data/onnx-gpt/"
cp "$shlo/mlp-x.npy" "$shlo/mlp-y.npy" "$out/data/shlo-mlp/"
# The importers write the initial values next to the output.
"$compile" "$onnx/gpt.onnx" --stages 1 --emit=pipe -o "$work/onnx-gpt.pipe"
mv "$work/onnx-gpt.safetensors" "$out/data/onnx-gpt/init.safetensors"
"$compile" "$shlo/mlp.debug.stablehlo.mlir" --params "$shlo/mlp-params.safetensors" \
  --stages 1 --emit=pipe -o "$work/shlo-mlp.pipe"
mv "$work/shlo-mlp.safetensors" "$out/data/shlo-mlp/init.safetensors"

source_of() {
  case $1 in
  mlp | transformer) echo "$root/examples/$1.mlir" ;;
  onnx-gpt) echo "$onnx/gpt.onnx" ;;
  shlo-mlp) echo "$shlo/mlp.debug.stablehlo.mlir --params $shlo/mlp-params.safetensors" ;;
  esac
}
# Data arguments relative to OUT (gpu-check.sh runs in OUT).
data_of() {
  case $1 in
  mlp | transformer) echo "--init data/$1/init.safetensors --data x=data/$1/x.npy --data y=data/$1/y.npy" ;;
  onnx-gpt) echo "--init data/$1/init.safetensors --data idx=data/$1/gpt-idx.npy --data targets=data/$1/gpt-targets.npy" ;;
  shlo-mlp) echo "--init data/$1/init.safetensors --data x=data/$1/mlp-x.npy --data y=data/$1/mlp-y.npy" ;;
  esac
}
microbatches_of() {
  case $1 in
  transformer) echo 2 ;; # a global batch of 4
  *) echo 4 ;;
  esac
}
schedule_flags() {
  case $1 in
  gpipe | 1f1b | zb-h1) echo "--stages 2" ;;
  interleaved) echo "--stages 4 --chunks 2" ;;
  hanayo | zb-v) echo "--stages 4" ;;
  esac
}
train="--steps 5 --optimizer adam --lr 0.001"

printf 'name\tkind\tmodel\tranks\ttolerance\treference\targs\n' >"$out/cases.tsv"
# case NAME KIND MODEL TOLERANCE REFERENCE COMPILE-FLAGS...: compiles NAME for
# CUDA and, when it is its own reference, for the CPU, whose run writes
# ref/NAME.json; the CPU .pipe gives the simulator's prediction.
add_case() {
  local name=$1 kind=$2 model=$3 tol=$4 ref=$5
  shift 5
  local src
  src=$(source_of "$model")
  # shellcheck disable=SC2086
  "$compile" $src "$@" --target cuda -o "$work/$name.full" 2>"$work/err" ||
    { cat "$work/err" >&2; echo "gpu-check-prepare: $name: CUDA compile failed" >&2; return 1; }
  strip -o "$work/bin/$name" "$work/$name.full"
  rm -f "$work/$name.full" "$work/$name.safetensors"
  local ranks
  ranks=$(cd "$work/bin" && LD_LIBRARY_PATH="$out/lib" ./"$name" --print-ranks)
  if [ "$ref" = "$name" ] && [ ! -s "$out/ref/$name.json" ]; then
    # shellcheck disable=SC2086
    "$compile" $src "$@" -o "$work/$name.cpu" 2>"$work/err" ||
      { cat "$work/err" >&2; echo "gpu-check-prepare: $name: CPU compile failed" >&2; return 1; }
    # shellcheck disable=SC2086
    (cd "$out" && "$run" -n "$ranks" "$work/$name.cpu" $(data_of "$model") \
      $train --log-json "$out/ref/$name.json" >"$work/log" 2>&1) ||
      { cat "$work/log" >&2; echo "gpu-check-prepare: $name: CPU run failed" >&2; return 1; }
    # shellcheck disable=SC2086
    "$compile" $src "$@" --emit=pipe -o "$work/$name.pipe" 2>/dev/null &&
      "$opt" "$work/$name.pipe" --sched-simulate="device=h200 report=-" \
        -o /dev/null 2>/dev/null | grep '^step time' >"$out/ref/$name.sim" || true
    rm -f "$work/$name.cpu" "$work/$name.pipe" "$work/$name.safetensors"
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$kind" "$model" "$ranks" \
    "$tol" "$ref" "$(data_of "$model") $train" >>"$out/cases.tsv"
  echo "prepared $name ($kind, $ranks ranks)"
}

models=${PW_GPU_CHECK_MODELS:-mlp transformer onnx-gpt shlo-mlp}
schedules=${PW_GPU_CHECK_SCHEDULES:-gpipe 1f1b interleaved hanayo zb-h1 zb-v}
for model in $models; do
  for schedule in $schedules; do
    for r in 1 2; do
      name="$model-$schedule-r$r"
      # shellcheck disable=SC2046
      add_case "$name" parity "$model" 1e-5 "$name" $(schedule_flags "$schedule") \
        --schedule "$schedule" --microbatches "$(microbatches_of "$model")" \
        --replicas "$r"
    done
  done
done
# Math modes against the fp32 CPU run (the tolerances docs/gpu.md states).
for model in mlp transformer; do
  ref="$model-1f1b-r1"
  [ -f "$out/ref/$ref.json" ] || add_case "$ref" parity "$model" 1e-5 "$ref" \
    --stages 2 --schedule 1f1b --microbatches "$(microbatches_of "$model")"
  add_case "$model-1f1b-tf32" tf32 "$model" 5e-3 "$ref" --stages 2 \
    --schedule 1f1b --microbatches "$(microbatches_of "$model")" --precision tf32
  add_case "$model-1f1b-bf16" bf16 "$model" 3e-2 "$ref" --stages 2 \
    --schedule 1f1b --microbatches "$(microbatches_of "$model")" --precision bf16
done
# One stage, one rank: graphs on/off and NCCL at world size 1.
add_case mlp-s1 single mlp 1e-5 mlp-s1 --stages 1 --microbatches 1
# A wide MLP (4 layers of 2048, batch 2048): its data is made on the GPU
# machine (make-npy.py), its parameters by the runtime's default init.
"$python" "$root/scripts/gen-mlp.py" --layers 4 --width 2048 --batch 2048 \
  --in 2048 --out 2048 >"$work/wide.mlir"
"$compile" "$work/wide.mlir" --stages 1 --microbatches 1 --target cuda \
  -o "$work/wide.full"
strip -o "$work/bin/wide-mlp" "$work/wide.full"
rm -f "$work/wide.full"
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' wide-mlp wide wide-mlp 1 - - \
  "--data x=data/wide/x.npy --data y=data/wide/y.npy $train" >>"$out/cases.tsv"

# Simulated against measured: bench/sim-vs-measured's models and rows.
here="$root/bench/sim-vs-measured"
mkdir -p "$out/data/sim"
"$python" "$root/scripts/make-npy.py" "$out/data/sim/x.npy" 16 64
"$python" "$root/scripts/make-npy.py" "$out/data/sim/y.npy" 16 8
"$python" "$root/scripts/make-npy.py" "$out/data/sim/tx.npy" 4 8 32
"$python" "$root/scripts/make-npy.py" "$out/data/sim/ty.npy" 4 8 32
"$python" "$root/scripts/make-npy.py" "$out/data/sim/x512.npy" 256 64
"$python" "$root/scripts/make-npy.py" "$out/data/sim/y512.npy" 256 8
"$python" "$root/scripts/make-npy.py" "$out/data/sim/tx256.npy" 8 32 256
"$python" "$root/scripts/make-npy.py" "$out/data/sim/ty256.npy" 8 32 256
"$python" "$root/scripts/gen-mlp.py" --layers 8 --width 512 --batch 256 \
  >"$work/mlp512.mlir"
"$python" "$here/gen-transformer.py" --blocks 4 --width 256 --heads 4 \
  --batch 8 --seq 32 >"$work/transformer256.mlir"
sim_case() { # MODEL STAGES RANKS SCHEDULE [FLAGS...]
  local model=$1 stages=$2 ranks=$3 schedule=$4 src data
  shift 4
  case $model in
  mlp) src="$root/examples/mlp.mlir" data="x=data/sim/x.npy --data y=data/sim/y.npy" ;;
  transformer) src="$root/examples/transformer.mlir" data="x=data/sim/tx.npy --data y=data/sim/ty.npy" ;;
  mlp512) src="$work/mlp512.mlir" data="x=data/sim/x512.npy --data y=data/sim/y512.npy" ;;
  transformer256) src="$work/transformer256.mlir" data="x=data/sim/tx256.npy --data y=data/sim/ty256.npy" ;;
  esac
  local name="sim-$model-$schedule-$stages-$ranks"
  "$compile" "$src" --target cuda --quiet -o "$work/$name.full" \
    --stages "$stages" --microbatches 4 --schedule "$schedule" "$@"
  strip -o "$work/bin/$name" "$work/$name.full"
  rm -f "$work/$name.full"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" sim "$model" "$ranks" - - \
    "--data $data --optimizer adam --lr 0.001" \
    >>"$out/cases.tsv"
}
for model in mlp transformer mlp512 transformer256; do
  # Both stages on one rank: no other rank's launches share the GPU and
  # the host's driver, as in the calibration's one-rank runs.
  sim_case "$model" 2 1 interleaved --chunks 2
  sim_case "$model" 2 2 gpipe
  sim_case "$model" 2 2 1f1b
  sim_case "$model" 2 2 zb-h1
  sim_case "$model" 4 2 zb-v
  case $model in mlp | transformer)
    sim_case "$model" 4 2 interleaved --chunks 2
    sim_case "$model" 4 2 hanayo --waves 1
    sim_case "$model" 4 4 1f1b
    ;;
  esac
done

# The GPU calibration's models (pipewave-calibrate --target cuda runs them
# on the GPU machine from this work directory); their data is remade there.
if [ -x "$build/bin/pipewave-calibrate" ]; then
  "$build/bin/pipewave-calibrate" --target cuda --base h200 --compile-only \
    --passes 1 --work-dir "$work/calibrate" --bin-dir "$build/bin" 2>"$work/err" ||
    { cat "$work/err" >&2; echo "gpu-check-prepare: calibration models failed to compile" >&2; exit 1; }
  rm -f "$work"/calibrate/*.npy "$work"/calibrate/*.log
  for f in "$work"/calibrate/*.bin; do strip "$f"; done
  strip -o "$work/bin/pipewave-calibrate" "$build/bin/pipewave-calibrate"
fi

# The libraries the binaries need beyond the C/C++ runtime and CUDA (MPI
# and what it needs: the GPU machine may have no MPI; a run without a
# launcher does not start it), from this machine.
ldd "$work/bin/mlp-s1" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
  case $(basename "$lib") in
  libc.so* | libm.so* | libpthread.so* | libdl.so* | librt.so* | ld-linux* | \
    libstdc++.so* | libgcc_s.so* | libcuda*.so* | libcublas*.so* | \
    libnccl*.so* | libpipewave_*) ;;
  *) cp -L "$lib" "$out/lib/" ;;
  esac
done

tar -C "$work" -cJf "$out/bin.tar.xz" bin $([ -d "$work/calibrate" ] && echo calibrate)
echo "gpu-check-prepare: $(($(wc -l <"$out/cases.tsv") - 1)) cases in $out ($(du -sh "$out" | cut -f1))"
