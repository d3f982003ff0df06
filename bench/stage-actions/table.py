#!/usr/bin/env python3
"""table.py REPORT TIMES MODEL SCHEDULE [M]: Markdown rows of predicted
against measured per-action durations (bench/stage-actions/run.sh). REPORT
is the sched-simulate report (per-microbatch F, B, I, W of every stage),
TIMES the output of a model linked with actions_runtime.c, M the step's
microbatches (default 4): the runtime accumulates M - 1 of a step's M
parameter gradients (it writes the first in place), so (M - 1) / M of the
measured accumulation is added to each B and W."""

import re
import sys


def predictions(text):
    """stage -> {F, B, I, W} in seconds."""
    table, inside = {}, False
    for line in text.splitlines():
        if line.strip().startswith("stage ") and "function" in line:
            inside = True
            continue
        if inside:
            fields = line.split()
            if not fields or not fields[0].isdigit():
                inside = False
                continue
            table[int(fields[0])] = dict(
                zip("FBIW", (float(x) for x in fields[2:6])))
    return table


def main(argv):
    report, times, model, schedule = argv[1:5]
    microbatches = int(argv[5]) if len(argv) > 5 else 4
    share = (microbatches - 1) / microbatches
    with open(report) as f:
        predicted = predictions(f.read())
    measured = {}
    with open(times) as f:
        for line in f:
            m = re.match(r"stage (\d+) (\S+) (\S+) (\S+) (\S+)", line)
            if m:
                measured[(int(m.group(1)), m.group(2))] = [
                    float(m.group(i)) for i in (3, 4, 5)]
    split = any(kind == "I" for _, kind in measured)
    for stage in sorted(predicted):
        acc = measured.get((stage, "acc"), [0, 0, 0])
        for kind in ("F", "I", "W") if split else ("F", "B"):
            if (stage, kind) not in measured:
                continue
            best, median, cpu = measured[(stage, kind)]
            # The runtime accumulates parameter gradients after B and W
            # (M - 1 of M on average).
            if kind in ("B", "W"):
                best, median, cpu = (best + share * acc[0],
                                     median + share * acc[1],
                                     cpu + share * acc[2])
            p = predicted[stage][kind] * 1e6
            # An action below the timer's resolution (a first stage's I,
            # which computes nothing) measures 0: no ratio.
            ratio = lambda t: "%.2f" % (p / t) if t > 0 else "-"  # noqa: E731
            print("| %s | %s | %d | %s | %.0f | %.0f | %.0f | %.0f | %s | %s |"
                  % (model, schedule, stage, kind, p, best, median, cpu,
                     ratio(best), ratio(cpu)))


if __name__ == "__main__":
    main(sys.argv)
