#!/usr/bin/env python3
"""table.py REPORT TIMES MODEL SCHEDULE [M]: Markdown rows of predicted
against measured per-action durations (bench/stage-actions/run.sh). REPORT
is the sched-simulate report (per-microbatch F, B, I, W of every stage),
TIMES the output of a model linked with actions_runtime.c, M the step's
microbatches (default 4). A step's first B or W writes its parameter
gradients in place; the other M - 1 run the accumulating variant (Bacc,
Wacc) where the model has one, plus the runtime's accumulation of what
that variant does not add itself (accB, accW). A measured B or W is that
mix: B / M + (M - 1) / M x (Bacc or B, plus accB)."""

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
        for kind in ("F", "I", "W") if split else ("F", "B"):
            if (stage, kind) not in measured:
                continue
            first = measured[(stage, kind)]
            if kind in ("B", "W"):
                later = measured.get((stage, kind + "acc"), first)
                acc = measured.get((stage, "acc" + kind), [0, 0, 0])
                best, median, cpu = (
                    f / microbatches + share * (a + b)
                    for f, a, b in zip(first, later, acc))
            else:
                best, median, cpu = first
            p = predicted[stage][kind] * 1e6
            # An action below the timer's resolution (a first stage's I,
            # which computes nothing) measures 0: no ratio.
            ratio = lambda t: "%.2f" % (p / t) if t > 0 else "-"  # noqa: E731
            print("| %s | %s | %d | %s | %.0f | %.0f | %.0f | %.0f | %s | %s |"
                  % (model, schedule, stage, kind, p, best, median, cpu,
                     ratio(best), ratio(cpu)))


if __name__ == "__main__":
    main(sys.argv)
