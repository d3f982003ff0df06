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
  calibrated: the simulator on ACTIONS with every stage's F, B, I, W and
              optimizer durations set to the medians of that stage's slices
              in TRACE (the same run), each F, B, I and W with its share of
              its rank's time in no slice (the runtime between slices,
              posting receives included; median per step, over the rank's
              compute actions), the step's agreement on non-finite
              values to the median of the last-arriving rank's "agree step"
              slice, messages of the sizes in REPORT on
              DEVICE's links (the cpu file: 1 us latency, 20 GB/s; a
              calibrated device: the measured MPI figures, and the CPU
              time of posting a send and of completing a receive).
  cost model: REPORT's step time (the per-op cost model on DEVICE).

  fastest:    the shortest of those spans (on a loaded machine, the step
              that was least disturbed by other processes).

  compute:    the compute slices of the trace (F, B, I, W) against the
              cost model's durations of the same actions in REPORT: their
              summed medians over the summed predictions. Near 1 when the
              machine ran at the speed DEVICE was measured at; a run in a
              slow or fast spell of a shared machine moves every action
              alike and shows here, whatever the schedule.

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
    spans = []
    for k in steps[1:]:
        longest = 0.0
        for rank in ranks:
            mine = slices.get((k, rank))
            if mine:
                longest = max(longest,
                              max(e["ts"] + e["dur"] for e in mine) -
                              min(e["ts"] for e in mine))
        spans.append(longest)
    measured = statistics.median(spans)
    fastest = min(spans)

    # Median duration of every (kind, stage) compute slice after step 1.
    durations = {}
    for e in events:
        if e["args"]["step"] == steps[0]:
            continue
        m = re.match(r"([FBIW]) s(\d+) mb\d+$", e["name"])
        if e.get("cat") == "compute" and m:
            key = (m.group(1), int(m.group(2)))
        elif e.get("cat") == "optimizer":
            m = re.match(r"optimizer s(\d+)$", e["name"])
            if not m:
                continue
            key = ("OPT", int(m.group(1)))
        else:
            continue
        durations.setdefault(key, []).append(e["dur"])

    # The run's compute slices against the cost model's durations of the
    # same actions (each (kind, stage) median weighted by its count): near
    # 1 when the machine ran at the speed it was calibrated at; far from 1
    # when its speed changed between the calibration and this run (other
    # processes sharing its cores), whatever the schedule.
    timed = sum(len(v) * statistics.median(v) * 1e-6
                for key, v in durations.items() if key in predicted)
    priced = sum(len(v) * predicted[key]
                 for key, v in durations.items() if key in predicted)
    speed = timed / priced if priced > 0 else float("nan")

    # A rank's own work outside its compute slices: the runtime between
    # slices (time inside no slice), per step (the median over the steps),
    # shared out over the rank's compute actions. Posting sends and
    # completing receives are the simulator's (a calibrated DEVICE's send
    # and recv times of a message), as are the waits (receives, completing
    # sends, the agreement). Posting receives, in no slice, stays here.
    overhead = {}  # stage -> seconds added to each of its F, B, I, W
    for rank in ranks:
        per_step, actions, stages = [], 0, set()
        for k in steps[1:]:
            mine = slices.get((k, rank))
            if not mine:
                continue
            span = max(e["ts"] + e["dur"] for e in mine) - mine[0]["ts"]
            covered = sum(e["dur"] for e in mine)
            per_step.append(max(span - covered, 0.0))
            compute = [e for e in mine if e.get("cat") == "compute"]
            actions = len(compute)
            stages |= {int(re.search(r" s(\d+)", e["name"]).group(1))
                       for e in compute}
        if per_step and actions:
            for stage in stages:
                overhead[stage] = statistics.median(per_step) * 1e-6 / actions

    def median_s(kind, stage):
        values = durations.get((kind, stage))
        if not values:
            return 0.0
        return statistics.median(values) * 1e-6 + overhead.get(stage, 0.0)

    # The step's agreement on non-finite values: the rank that arrives last
    # waits for no one, so its "agree step" slice is its scan of the
    # gradients and the all-reduce; the median over the steps, shared out
    # over the stages of a rank (the simulator sums a rank's stages).
    agree = {}
    for e in events:
        if e["name"] == "agree step" and e["args"]["step"] != steps[0]:
            step = e["args"]["step"]
            agree[step] = min(agree.get(step, e["dur"]), e["dur"])
    per_rank = len(sends) / max(len(ranks), 1)
    check = (statistics.median(agree.values()) * 1e-6 / per_rank
             if agree else 0.0)

    with tempfile.NamedTemporaryFile("w", suffix=".txt") as costs:
        costs.write("# stage F B I W OPT activation_bytes check\n")
        for s in sorted(sends):
            costs.write("%d %.9g %.9g %.9g %.9g %.9g %.9g %.9g\n" % (
                s, median_s("F", s), median_s("B", s), median_s("I", s),
                median_s("W", s), median_s("OPT", s), sends[s], check))
        costs.flush()
        out = subprocess.run([simulator, actions_path, costs.name, device],
                             check=True, capture_output=True, text=True)
    calibrated = float(re.search(r"step_time_s (\S+)", out.stdout).group(1))
    print("%.1f\t%.1f\t%.1f\t%.1f\t%.3f" % (measured, calibrated * 1e6,
                                            cost_model * 1e6, fastest, speed))


if __name__ == "__main__":
    main(sys.argv)
