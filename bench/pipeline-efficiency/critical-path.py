#!/usr/bin/env python3
"""Runtime efficiency of a 2-rank forward-only pipeline from its --trace.

For every step, the ideal step time given the compute durations that step
really had is the pipeline's critical path:
    f0[i] = f0[i-1] + c0[i];  f1[i] = max(f1[i-1], f0[i]) + c1[i]
(rank 0 computes microbatch i, then rank 1 does). The measured step is the
time from rank 0's first compute of the step to its first compute of the
next. measured / ideal isolates what the runtime adds (waits, messages,
dispatch) from how fast the cores computed; slow compute (a busy host, a
throttled core) slows both alike.

  critical-path.py TRACE.json M
"""
import json
import statistics
import sys


def main():
    trace, m = sys.argv[1], int(sys.argv[2])
    data = json.load(open(trace))
    events = data["traceEvents"] if isinstance(data, dict) else data
    computes = {0: [], 1: []}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "compute" and e["pid"] in computes:
            computes[e["pid"]].append(e)
    for c in computes.values():
        c.sort(key=lambda e: e["ts"])
    steps = min(len(computes[0]), len(computes[1])) // m
    ratios, measured_ms, ideal_ms = [], [], []
    for k in range(1, steps - 1):  # skip the warm-up step and the last
        c0 = [e["dur"] for e in computes[0][k * m:(k + 1) * m]]
        c1 = [e["dur"] for e in computes[1][k * m:(k + 1) * m]]
        f0 = f1 = 0.0
        for i in range(m):
            f0 += c0[i]
            f1 = max(f1, f0) + c1[i]
        measured = computes[0][(k + 1) * m]["ts"] - computes[0][k * m]["ts"]
        ratios.append(f1 / measured)
        measured_ms.append(measured / 1000)
        ideal_ms.append(f1 / 1000)
    print(f"steps analysed: {len(ratios)}")
    print(f"measured step: median {statistics.median(measured_ms):.3f} ms")
    print(f"critical path of the computes it ran: median "
          f"{statistics.median(ideal_ms):.3f} ms")
    print(f"runtime efficiency (critical path / measured): median "
          f"{100 * statistics.median(ratios):.1f}%, worst "
          f"{100 * min(ratios):.1f}%, mean {100 * statistics.mean(ratios):.1f}%")


if __name__ == "__main__":
    main()
