#!/usr/bin/env bash
# Multi-node training on one machine (not in CI; needs root for ip netns;
# docs/reliability.md has its figures). Two "nodes" are network namespaces
# joined by veth links to a bridge, each with its own hostname; mpirun
# reaches them through a launch agent that enters the namespace where ssh
# would log in (and, like ssh with keep-alives, ends when the node's link
# goes down). Open MPI's TCP transport carries every message (no shared
# memory). Then:
#   1. examples/transformer.mlir, 4 stages on 2 nodes x 2 ranks: the same
#      losses (bit for bit) as on one node;
#   2. the link between the nodes shaped (tc netem delay if the kernel has
#      it, else a tbf rate limit): the simulator's predicted slowdown
#      (sched-simulate with the device's inter-node term changed to match)
#      against the measured one, runs alternated ABAB, medians;
#   3. a node's link taken down mid-step: every rank ends, with an error,
#      within 30 s, and the last checkpoint still resumes.
# Usage: scripts/multinode.sh BUILD_DIR [STEPS]
#   PIPEWAVE_SHAPED_MBIT  the tbf rate in Mbit/s where the kernel has no
#                         netem (default 8; lower makes the slowdown stand
#                         out of a loaded machine's noise)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: scripts/multinode.sh BUILD_DIR [STEPS]}" && pwd)
steps=${2:-40}
[ "$(id -u)" -eq 0 ] || { echo "multinode.sh: needs root (ip netns)" >&2; exit 2; }
net=pw$$
work=$(mktemp -d)
cleanup() {
  for n in 1 2; do
    ip netns del "${net}n$n" 2>/dev/null || true
    ip link del "${net}v$n" 2>/dev/null || true
  done
  ip link del "${net}b" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The bridge (10.77.0.1, where mpirun listens) and two nodes on it.
ip link add "${net}b" type bridge
ip addr add 10.77.0.1/24 dev "${net}b"
ip link set "${net}b" up
for n in 1 2; do
  ip netns add "${net}n$n"
  ip link add "${net}v$n" type veth peer name eth0 netns "${net}n$n"
  ip link set "${net}v$n" master "${net}b" up
  ip -n "${net}n$n" addr add "10.77.0.1$n/24" dev eth0
  ip -n "${net}n$n" link set eth0 up
  ip -n "${net}n$n" link set lo up
done
cat >"$work/agent" <<AGENT
#!/bin/sh
# mpirun's launch agent: "agent HOST COMMAND..." runs COMMAND (a shell
# command line, as ssh takes it) in HOST's namespace under its hostname;
# ends (255, as ssh does) once the node's link is down.
host=\$1; shift
case \$host in
10.77.0.11) ns=${net}n1 ;;
10.77.0.12) ns=${net}n2 ;;
*) echo "agent: unknown host \$host" >&2; exit 1 ;;
esac
ip netns exec "\$ns" unshare --uts sh -c "hostname node-\$ns; exec \$*" &
pid=\$!
while kill -0 "\$pid" 2>/dev/null; do
  if ! ip -n "\$ns" link show eth0 | grep -q "state UP"; then
    echo "agent: lost the link to \$host" >&2
    kill -9 "\$pid"
    exit 255
  fi
  sleep 1
done
wait "\$pid"
AGENT
chmod +x "$work/agent"

cd "$work"
"$build/bin/pipewave-compile" "$root/examples/transformer.mlir" -o t \
  --stages 4 --schedule 1f1b --microbatches 4 --quiet
"$build/bin/pipewave-compile" "$root/examples/transformer.mlir" -o t.pipe \
  --stages 4 --schedule 1f1b --microbatches 4 --emit=pipe --quiet
python3 "$root/scripts/make-npy.py" x.npy 4 8 32
python3 "$root/scripts/make-npy.py" y.npy 4 8 32
train=(./t --data x=x.npy --data y=y.npy --optimizer adam --lr 0.001)
mpi=()
for a in --mca plm_rsh_agent "$work/agent" --mca btl tcp,self \
  --mca btl_tcp_if_include 10.77.0.0/24 --mca oob_tcp_if_include 10.77.0.0/24; do
  mpi+=(--mpi-arg "$a")
done
two() { "$build/bin/pipewave-run" -n 4 -H 10.77.0.11:2,10.77.0.12:2 "${mpi[@]}" "$@"; }
median() {
  python3 -c 'import json,statistics,sys
t=[json.loads(l)["time_ms"] for l in open(sys.argv[1])][1:]
print("%.3f" % statistics.median(t))' "$1"
}

echo "== 1. two nodes against one"
"$build/bin/pipewave-run" -n 4 "${train[@]}" --steps "$steps" \
  --log-json one.jsonl >/dev/null 2>&1
two "${train[@]}" --steps "$steps" --log-json two.jsonl >/dev/null 2>&1
"$build/unittests/Runtime/pw-test-tool" compare-logs one.jsonl two.jsonl 0
echo

echo "== 2. a shaped link between the nodes"
mbit=${PIPEWAVE_SHAPED_MBIT:-8}
python3 - "$root/data/devices/cpu.json" "$mbit" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def write(name, latency, rate):
    e = dict(d, name=name)
    e["interNode"] = {"bytesPerSecond": rate, "latencySeconds": latency}
    json.dump(e, open(name + ".json", "w"))
base = d["interNode"]
write("plain", base["latencySeconds"], base["bytesPerSecond"])
write("delay", base["latencySeconds"] + 5e-3, base["bytesPerSecond"])
write("rate", base["latencySeconds"], float(sys.argv[2]) * 1e6 / 8)
PY
if ip netns exec "${net}n1" tc qdisc add dev eth0 root netem delay 5ms 2>/dev/null; then
  ip netns exec "${net}n1" tc qdisc del dev eth0 root
  shape=(netem delay 5ms)
  model=delay
  what="netem delay 5 ms each way"
else
  shape=(tbf rate "${mbit}mbit" burst 1600 latency 1s)
  model=rate
  what="tbf rate $mbit Mbit/s (this kernel has no netem)"
fi
simulate() {
  "$build/bin/pipewave-opt" t.pipe --pass-pipeline="builtin.module(sched-simulate{device=$work/$1.json devices-per-node=2 report=-})" -o /dev/null |
    sed -n 's/^step time: \([0-9.e+-]*\) s.*/\1/p'
}
predicted=$(python3 -c "print('%.3f' % (($(simulate "$model") - $(simulate plain)) * 1e3))")
plain=() shaped=()
for round in 1 2 3; do
  two "${train[@]}" --steps "$steps" --log-json "p$round.jsonl" >/dev/null 2>&1
  plain+=("$(median "p$round.jsonl")")
  for n in 1 2; do ip netns exec "${net}n$n" tc qdisc add dev eth0 root "${shape[@]}"; done
  two "${train[@]}" --steps "$steps" --log-json "s$round.jsonl" >/dev/null 2>&1
  shaped+=("$(median "s$round.jsonl")")
  for n in 1 2; do ip netns exec "${net}n$n" tc qdisc del dev eth0 root; done
done
python3 - "$what" "$predicted" "${plain[*]}" "${shaped[*]}" <<'PY'
import statistics, sys
what, predicted = sys.argv[1], float(sys.argv[2])
plain = [float(v) for v in sys.argv[3].split()]
shaped = [float(v) for v in sys.argv[4].split()]
measured = statistics.median(shaped) - statistics.median(plain)
print(f"link: {what}")
print(f"median step, plain link (ms):  {plain}")
print(f"median step, shaped link (ms): {shaped}")
print(f"slowdown: measured {measured:.3f} ms, predicted {predicted:.3f} ms "
      f"(predicted / measured {predicted / measured:.2f})")
PY
echo

echo "== 3. a link taken down mid-training"
two "${train[@]}" --steps 100000000 --checkpoint-dir ck --checkpoint-every 20 \
  --timeout 10 >down.out 2>down.err &
run=$!
for _ in $(seq 1 300); do
  [ -e ck/step-000040/manifest.json ] && break
  sleep 0.1
done
ip -n "${net}n2" link set eth0 down
start=$(date +%s)
set +e
wait "$run"
code=$?
set -e
elapsed=$(($(date +%s) - start))
echo "every rank ended $elapsed s after the link went down (exit $code):"
grep -E "^pipewave|^agent" down.err | head -n 4
ip -n "${net}n2" link set eth0 up
last=$(ls -d ck/step-*/manifest.json | tail -n 1)
echo "last complete checkpoint: ${last%/manifest.json}"
"$build/bin/pipewave-run" -n 4 "${train[@]}" --steps 1 --checkpoint-dir ck \
  --resume 2>&1 | grep -E "resuming|^step"
[ "$elapsed" -le 30 ] || { echo "FAIL: took more than 30 s"; exit 1; }
