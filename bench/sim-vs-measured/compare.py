#!/usr/bin/env python3
"""compare.py TRACE ACTIONS REPORT SIMULATOR [DEVICE]: one step of a compiled
pipeline, measured against the simulator (bench/sim-vs-measured/run.sh).

TRACE is the runtime's --trace JSON, ACTIONS the program as an action list
(sched-export), REPORT the `sched-simulate{device=cpu report=-}` output of
the same module, SIMULATOR the pipewave-sim-calibrated binary. Steps after
the first count (the first pays for page faults and lazy initialisation).

  measured:   per step, the longest span of one rank from its first
              action's start to its last action's end (each rank's own
              clock: the ranks' trace origins differ by up to hundreds of
              microseconds on a loaded machine, so spans across ranks are
              not taken); the median over the steps.
  calibrated: the simulator on ACTIONS once for every step after the
              first, with that step's durations: every stage's F, B, I,
              W and optimizer time the mean of that stage's slices of
              the step, each F, B, I and W with its share of its rank's
              time in no slice in that step (the runtime between slices,
              posting receives included), the step's agreement on
              non-finite values the last-arriving rank's "agree step"
              slice, messages of the sizes in REPORT on DEVICE's links
              (the cpu file: 1 us latency, 20 GB/s; a calibrated device:
              the measured MPI figures, and the CPU time of posting a send
              and of completing a receive); the median over the steps.
              A step's actions are not independent draws: one that ran in
              a slow moment of a shared machine has slow neighbours, and a
              step sums many skewed durations. Per-action medians over the
              whole run, simulated once, come out 3-10% below the median
              step for that reason alone (docs/bench.md, "Step by step").
  cost model: REPORT's step time (the per-op cost model on DEVICE).

  fastest:    the shortest of those spans (on a loaded machine, the step
              that was least disturbed by other processes).

  compute:    per step, the sum of its compute slices (F, B, I, W)
              over the cost model's durations of the same actions in
              REPORT; the median over the steps. Near 1 when the machine
              ran at the speed DEVICE was measured at; a run in a slow or
              fast spell of a shared machine moves every action alike and
              shows here, whatever the schedule.

Prints one line, tab-separated: measured_us calibrated_us cost_model_us
fastest_us compute_ratio.
"""

import json
import re
import statistics
import subprocess
import sys
import tempfile


def stage_table(report_text):
    """stage -> activation bytes sent per microbatch; (kind, stage) -> the
    cost model's F, B, I and W seconds; and the step time."""
    sends, predicted, step = {}, {}, None
    in_table = False
    for line in report_text.splitlines():
        m = re.match(r"step time: (\S+) s", line)
        if m:
            step = float(m.group(1))
        if line.strip().startswith("stage ") and "function" in line:
            in_table = True
            continue
        if in_table:
            fields = line.split()
            if not fields or not fields[0].isdigit():
                in_table = False
                continue
            # stage function F B I W optimizer send params stash
            stage = int(fields[0])
            sends[stage] = float(fields[7])
            for kind, value in zip("FBIW", fields[2:6]):
                predicted[(kind, stage)] = float(value)
    if step is None or not sends:
        raise SystemExit("compare.py: no sched-simulate report in the input")
    return sends, predicted, step


def step_durations(slices, step, ranks):
    """One step's span and durations (µs): the longest span of one rank
    (its first slice's start to its last slice's end); (kind, stage) -> its
    F, B, I, W or optimizer slices; stage -> the seconds its rank spent in
    no slice,
    shared out over the rank's compute actions (posting sends and
    completing receives are the simulator's, from DEVICE, as are the
    waits; posting receives, in no slice, stays here); and the shortest
    "agree step" slice (the last rank to arrive waits for no one, so its
    slice is its scan of the gradients and the all-reduce)."""
    longest, durations, overhead, agree = 0.0, {}, {}, None
    for rank in ranks:
        mine = slices.get((step, rank))
        if not mine:
            continue
        span = max(e["ts"] + e["dur"] for e in mine) - mine[0]["ts"]
        longest = max(longest, span)
        # A GPU rank's upload of the step's inputs is time in no action.
        covered = sum(e["dur"] for e in mine if e.get("cat") != "transfer")
        compute = []
        for e in mine:
            m = re.match(r"([FBIW]) s(\d+) mb\d+$", e["name"])
            if e.get("cat") == "compute" and m:
                key = (m.group(1), int(m.group(2)))
                compute.append(key[1])
            elif e.get("cat") == "optimizer":
                m = re.match(r"optimizer s(\d+)$", e["name"])
                if not m:
                    continue
                key = ("OPT", int(m.group(1)))
            else:
                if e["name"] == "agree step":
                    agree = e["dur"] if agree is None else min(agree, e["dur"])
                continue
            durations.setdefault(key, []).append(e["dur"])
        for stage in set(compute):
            overhead[stage] = max(span - covered, 0.0) * 1e-6 / len(compute)
    return longest, durations, overhead, agree or 0.0


def main(argv):
    if len(argv) not in (5, 6):
        raise SystemExit(__doc__)
    trace_path, actions_path, report_path, simulator = argv[1:5]
    device = argv[5] if len(argv) == 6 else "cpu"
    with open(trace_path) as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    with open(report_path) as f:
        sends, predicted, cost_model = stage_table(f.read())

    steps = sorted({e["args"]["step"] for e in events})
    if len(steps) < 2:
        raise SystemExit("compare.py: the trace needs at least 2 steps")
    ranks = sorted({e["pid"] for e in events})
    # Every (step, rank)'s slices in time order.
    slices = {}
    for e in sorted(events, key=lambda e: e["ts"]):
        slices.setdefault((e["args"]["step"], e["pid"]), []).append(e)
    spans, tables, speeds = [], [], []
    check_share = len(sends) / max(len(ranks), 1)
    for k in steps[1:]:
        span, durations, overhead, agree = step_durations(slices, k, ranks)
        spans.append(span)
        timed = sum(sum(v) for key, v in durations.items() if key in predicted)
        priced = sum(len(v) * predicted[key]
                     for key, v in durations.items() if key in predicted)
        if priced > 0:
            speeds.append(timed * 1e-6 / priced)

        def seconds(kind, stage):
            values = durations.get((kind, stage))
            if not values:
                return 0.0
            return (statistics.mean(values) * 1e-6 +
                    (overhead.get(stage, 0.0) if kind != "OPT" else 0.0))

        # The agreement, shared out over the stages of a rank (the
        # simulator sums a rank's stages).
        check = agree * 1e-6 / check_share
        tables.append("table\n" + "".join(
            "%d %.9g %.9g %.9g %.9g %.9g %.9g %.9g\n" % (
                s, seconds("F", s), seconds("B", s), seconds("I", s),
                seconds("W", s), seconds("OPT", s), sends[s], check)
            for s in sorted(sends)))
    speed = statistics.median(speeds) if speeds else float("nan")
    measured = statistics.median(spans)
    fastest = min(spans)

    with tempfile.NamedTemporaryFile("w", suffix=".txt") as costs:
        costs.write("# one table per step: stage F B I W OPT "
                    "activation_bytes check\n")
        costs.write("".join(tables))
        costs.flush()
        out = subprocess.run([simulator, actions_path, costs.name, device],
                             check=True, capture_output=True, text=True)
    simulated = [float(t) for t in re.findall(r"step_time_s (\S+)", out.stdout)]
    if len(simulated) != len(tables):
        raise SystemExit("compare.py: %d step times for %d tables" %
                         (len(simulated), len(tables)))
    calibrated = statistics.median(simulated)
    print("%.1f\t%.1f\t%.1f\t%.1f\t%.3f" % (measured, calibrated * 1e6,
                                            cost_model * 1e6, fastest, speed))


if __name__ == "__main__":
    main(sys.argv)
