#!/usr/bin/env python3
"""step-gaps.py TRACE [--step K]: where one rank's step goes, from a
pipewave-run --trace file (bench/sim-vs-measured/run.sh writes them).

For every rank, the medians over the steps after the first of: the span
(first slice's start to last slice's end, the measure compare.py takes),
the time in each slice category (compute, recv, send, agreement,
optimizer) and the time inside no slice.

Each rank's trace clock starts at its own origin, and the origins differ
by up to hundreds of microseconds from run to run. The script estimates
the offset of every rank's clock from rank 0's from the messages: a
receive cannot end before its send started, which bounds the offset from
both sides when messages go both ways. With the clocks aligned it prints
how much later than the earliest rank each rank starts a step (the start
lag) and ends it.

--step K also lists step K's slices, per rank, on the aligned clock.
"""

import collections
import json
import re
import statistics
import sys

MESSAGE = re.compile(r"(send|recv) (act|grad) s(\d+) mb(\d+)$")


def load(path):
    with open(path) as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    by_step = collections.defaultdict(list)
    for e in events:
        by_step[e["args"]["step"]].append(e)
    return by_step


def offsets(by_step, ranks):
    """rank -> its clock minus rank 0's (microseconds), from message bounds."""
    # A message from a to b: its receive ends (b's clock) no earlier than
    # its send starts (a's clock), so d(a, b) = clock_b - clock_a is at most
    # end - start; the messages from b to a bound it from below.
    high = collections.defaultdict(lambda: 1e18)
    for k in sorted(by_step)[1:]:
        sends, recvs = {}, {}
        for e in by_step[k]:
            m = MESSAGE.match(e["name"])
            if not m or e.get("cat") not in ("send", "recv"):
                continue
            # Keyed by the receiving stage: activations go to the next
            # stage, gradients to the previous one.
            stage = int(m.group(3))
            if m.group(1) == "send":
                stage += 1 if m.group(2) == "act" else -1
            key = (m.group(2), stage, m.group(4))
            if m.group(1) == "send":
                sends[key] = (e["pid"], e["ts"])
            else:
                recvs[key] = (e["pid"], e["ts"] + e["dur"])
        for key, (a, start) in sends.items():
            if key in recvs and recvs[key][0] != a:
                b, end = recvs[key]
                high[(a, b)] = min(high[(a, b)], end - start)
    pair = {}
    for (a, b) in high:
        lo, hi = -high.get((b, a), 1e18), high[(a, b)]
        if lo > -1e17:
            pair[(a, b)] = ((lo + hi) / 2, hi - lo)
            pair[(b, a)] = (-(lo + hi) / 2, hi - lo)
    known = {ranks[0]: (0.0, 0.0)}
    frontier = [ranks[0]]
    while frontier:
        a = frontier.pop()
        for (x, b), (d, width) in pair.items():
            if x == a and b not in known:
                known[b] = (known[a][0] + d, known[a][1] + width)
                frontier.append(b)
    return known


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--step"):
        raise SystemExit(__doc__)
    by_step = load(argv[1])
    steps = sorted(by_step)[1:]
    if not steps:
        raise SystemExit("step-gaps.py: the trace needs at least 2 steps")
    ranks = sorted({e["pid"] for k in steps for e in by_step[k]})
    clock = offsets(by_step, ranks)

    totals = collections.defaultdict(list)
    for k in steps:
        starts, ends = {}, {}
        for r in ranks:
            mine = sorted((e for e in by_step[k] if e["pid"] == r),
                          key=lambda e: e["ts"])
            if not mine:
                continue
            begin = mine[0]["ts"]
            end = max(e["ts"] + e["dur"] for e in mine)
            covered, reached = 0.0, begin
            per_cat = collections.Counter()
            for e in mine:
                per_cat[e.get("cat", "?")] += e["dur"]
                lo, hi = max(e["ts"], reached), e["ts"] + e["dur"]
                covered += max(0.0, hi - lo)
                reached = max(reached, hi)
            totals[(r, "span")].append(end - begin)
            totals[(r, "in no slice")].append(end - begin - covered)
            for cat, value in per_cat.items():
                totals[(r, cat)].append(value)
            if r in clock:
                starts[r] = begin - clock[r][0]
                ends[r] = end - clock[r][0]
        if starts:
            first = min(starts.values())
            last = min(ends.values())
            for r in starts:
                totals[(r, "start lag")].append(starts[r] - first)
                totals[(r, "end lag")].append(ends[r] - last)

    print("clock offsets from rank 0 (us, from message bounds; +- half the "
          "bound's width): " + ", ".join(
              "rank %d %+.1f +- %.1f" % (r, clock[r][0], clock[r][1] / 2)
              for r in ranks if r in clock))
    categories = sorted({c for (_, c) in totals} -
                        {"span", "in no slice", "start lag", "end lag"})
    columns = ["span"] + categories + ["in no slice", "start lag", "end lag"]
    print("medians over steps %d-%d (us)" % (steps[0], steps[-1]))
    print("| rank | " + " | ".join(columns) + " |")
    print("|---:|" + "---:|" * len(columns))
    for r in ranks:
        cells = []
        for c in columns:
            values = totals.get((r, c))
            cells.append("%.1f" % statistics.median(values) if values else "-")
        print("| %d | %s |" % (r, " | ".join(cells)))

    if len(argv) == 4:
        k = int(argv[3])
        if k not in by_step:
            raise SystemExit("step-gaps.py: no step %d in the trace" % k)
        origin = min(e["ts"] - clock.get(e["pid"], (0, 0))[0]
                     for e in by_step[k])
        for e in sorted(by_step[k], key=lambda e: (e["pid"], e["ts"])):
            shift = clock.get(e["pid"], (0, 0))[0]
            print("rank %d %8.1f %8.1f %6.1f  %-9s %s" % (
                e["pid"], e["ts"] - shift - origin,
                e["ts"] + e["dur"] - shift - origin, e["dur"],
                e.get("cat", "?"), e["name"]))


if __name__ == "__main__":
    main(sys.argv)
