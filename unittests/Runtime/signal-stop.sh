#!/usr/bin/env bash
# A stop signal mid-training (runtime.train.signal.* in CMakeLists.txt):
# starts a long 2-rank training run with --checkpoint-on-signal, sends
# SIGNAL to TARGET (pipewave-run, or rank 1 itself) once a few steps ran,
# and checks that every rank stopped within 30 s with exit code 128 +
# SIGNAL, after the same step, with a complete checkpoint of that step from
# which --resume continues.
# Usage: signal-stop.sh PIPEWAVE_RUN BINARY FIXTURES OUT_DIR TARGET SIGNAL
set -u
run=$1 binary=$2 fixtures=$3 out=$4 target=$5 sig=$6
rm -rf "$out"
mkdir -p "$out"
args=(-n 2 "$binary" --data "x=$fixtures/x.npy" --data "t=$fixtures/t.npy"
  --init "$fixtures/params.safetensors" --optimizer sgd --lr 0.5
  --momentum 0.9 --checkpoint-dir "$out/ck" --checkpoint-on-signal)
fail() {
  echo "FAIL: $*"
  echo "--- stdout"; tail -n 5 "$out/stdout"
  echo "--- stderr"; cat "$out/stderr"
  exit 1
}
"$run" "${args[@]}" --steps 100000000 >"$out/stdout" 2>"$out/stderr" &
launcher=$!
# Wait for training to be under way.
for _ in $(seq 1 300); do
  grep -q '^step 20 ' "$out/stdout" 2>/dev/null && break
  sleep 0.1
done
grep -q '^step 20 ' "$out/stdout" || fail "training did not start"
case $target in
run) kill "-$sig" "$launcher" ;;
rank)
  # Rank 1: the second process running the binary under mpirun.
  pid=$(pgrep -f -- "^$binary " | sort -n | sed -n 2p)
  [ -n "$pid" ] || fail "no rank process found"
  kill "-$sig" "$pid" ;;
*) fail "unknown target $target" ;;
esac
start=$(date +%s)
wait "$launcher"
code=$?
elapsed=$(($(date +%s) - start))
[ "$elapsed" -le 30 ] || fail "the ranks took ${elapsed} s to stop"
signo=$(kill -l "$sig")
[ "$code" -eq $((128 + signo)) ] || fail "exit code $code, not $((128 + signo))"
last=$(grep -o '^step [0-9]*' "$out/stdout" | tail -n 1 | cut -d' ' -f2)
grep -q "a rank received SIG$sig: stopped after step $last (its checkpoint is complete)" \
  "$out/stderr" || fail "no stop message for step $last"
dir=$(printf '%s/ck/step-%06d' "$out" "$last")
[ -f "$dir/manifest.json" ] || fail "no complete checkpoint $dir"
# The checkpoint resumes: the next step is the one after it.
"$run" "${args[@]}" --steps 1 --resume >"$out/resume" 2>&1 ||
  { cat "$out/resume"; fail "resume failed"; }
grep -q "^step $((last + 1))  loss" "$out/resume" ||
  { cat "$out/resume"; fail "resume did not continue at step $((last + 1))"; }
echo "stopped after step $last in ${elapsed} s, exit $code; resumed at $((last + 1))"
