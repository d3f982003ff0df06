#!/usr/bin/env python3
"""compare_memory.py SIMULATE.txt RUN.txt: the activation memory the
compiler predicts against what the runtime measured.

SIMULATE.txt is a `sched-simulate{report=...}` report of the compiled module
(`pipewave-compile --emit=pipe`): its per-microbatch stash of every stage
(the stage's non-parameter inputs and the stash its pipe.fwd function
returns) and every rank's peak stash (the most microbatches each held
stage keeps at once times its stash per microbatch). RUN.txt is the
output of the binary run with --print-memory: lines
"memory: rank R stages [S, ...]: peak activation memory N bytes (per
microbatch: stage S B, ...)". Every rank's measured peak must equal the
prediction, and so must every stage's bytes per microbatch. Prints one line
per rank; exits 1 on the first difference.
"""
import re
import sys


def predicted(path):
    stages, ranks = {}, {}
    section = None
    with open(path) as f:
        for line in f:
            if line.startswith("per microbatch"):
                section = "stages"
                continue
            if line.startswith("peak memory per device"):
                section = None
                continue
            if line.startswith("peak stash per device"):
                section = "ranks"
                continue
            fields = line.split()
            if not fields or not fields[0].isdigit():
                continue
            if section == "stages":
                # stage function F B I W optimizer send params stash
                stages[int(fields[0])] = float(fields[9])
            elif section == "ranks":
                # rank stages in-flight stash
                ranks[int(fields[0])] = float(fields[3])
    return stages, ranks


LINE = re.compile(r"memory: rank (\d+) stages \[([\d, ]*)\]: peak activation "
                  r"memory (\d+) bytes \(per microbatch: (.*)\)")


def measured(path):
    stages, ranks = {}, {}
    with open(path) as f:
        for line in f:
            m = LINE.search(line)
            if not m:
                continue
            ranks[int(m.group(1))] = int(m.group(3))
            for item in m.group(4).split(", "):
                _, stage, size = item.split()
                stages[int(stage)] = int(size)
    return stages, ranks


def main(argv):
    want_stages, want_ranks = predicted(argv[0])
    got_stages, got_ranks = measured(argv[1])
    if not want_ranks or not got_ranks:
        print("no prediction" if not want_ranks else "no measurement")
        return 1
    for stage in sorted(want_stages):
        if got_stages.get(stage) != want_stages[stage]:
            print("stage %d: %s bytes per microbatch measured, %g predicted" %
                  (stage, got_stages.get(stage), want_stages[stage]))
            return 1
    for rank in sorted(want_ranks):
        got, want = got_ranks.get(rank), want_ranks[rank]
        if got != want:
            print("rank %d: peak activation memory %s bytes measured, %g "
                  "predicted" % (rank, got, want))
            return 1
        print("rank %d: peak activation memory %d bytes, as predicted" %
              (rank, got))
    if sorted(got_ranks) != sorted(want_ranks):
        print("measured ranks %s, predicted ranks %s" %
              (sorted(got_ranks), sorted(want_ranks)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
