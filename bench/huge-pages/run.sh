#!/bin/sh
# bench/huge-pages/run.sh BUILD_DIR [ROUNDS STEPS]: the runtime's host
# buffers on transparent huge pages (the default) against ordinary pages
# (PW_HUGE_PAGES=0), alternated in every round (ABAB), on 2-rank 1F1B steps
# of an 8-layer 512-wide MLP at batch 256 and a 4-block width-256
# transformer (4 microbatches, Adam, one OpenBLAS thread per rank). Prints
# each run's median step (the runtime's "steps 2-N" line), the huge-page
# run's ratio to the ordinary one of the same round, and --print-memory's
# huge-page bytes. Not part of CI: times on a shared machine are noisy, so
# compare the pairs of one round.
set -eu
build=$(cd "${1:?usage: run.sh BUILD_DIR [ROUNDS STEPS]}" && pwd)
rounds=${2:-4}
steps=${3:-40}
here=$(cd "$(dirname "$0")" && pwd)
root="$here/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
cd "$work"
python3 "$root/scripts/gen-mlp.py" --layers 8 --width 512 --batch 256 > mlp512.mlir
python3 "$root/scripts/make-npy.py" x512.npy 256 64
python3 "$root/scripts/make-npy.py" y512.npy 256 8
python3 "$root/bench/sim-vs-measured/gen-transformer.py" --blocks 4 \
  --width 256 --heads 4 --batch 8 --seq 32 > transformer256.mlir
python3 "$root/scripts/make-npy.py" tx256.npy 8 32 256
python3 "$root/scripts/make-npy.py" ty256.npy 8 32 256
for model in mlp512 transformer256; do
  "$build/bin/pipewave-compile" "$model.mlir" -o "$model" --quiet \
    --stages 2 --microbatches 4 --schedule 1f1b
done
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg);" \
  "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unknown)"
echo
echo "| model | round | ordinary pages: median step (ms) | huge pages: median step (ms) | huge / ordinary | on huge pages per rank (MiB) |"
echo "|---|---:|---:|---:|---:|---:|"
# median STEPS_LINE: the median of the runtime's summary line.
median() { sed -n 's/.*median \([0-9.]*\) ms.*/\1/p'; }
for model in mlp512 transformer256; do
  case $model in
    mlp512) data="--data x=x512.npy --data y=y512.npy" ;;
    transformer256) data="--data x=tx256.npy --data y=ty256.npy" ;;
  esac
  round=1
  while [ "$round" -le "$rounds" ]; do
    for pages in 0 1; do
      # shellcheck disable=SC2086
      PW_HUGE_PAGES=$pages "$build/bin/pipewave-run" -n 2 "./$model" $data \
        --steps "$steps" --optimizer adam --lr 0.001 --print-memory \
        < /dev/null > "run.$pages" 2>&1
    done
    plain=$(median < run.0)
    huge=$(median < run.1)
    mib=$(sed -n 's/^huge pages: rank 0: \([0-9.]*\) MiB.*/\1/p' run.1)
    ratio=$(python3 -c "print('%.2f' % ($huge / $plain))")
    echo "| $model | $round | $plain | $huge | $ratio | $mib |"
    round=$((round + 1))
  done
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
