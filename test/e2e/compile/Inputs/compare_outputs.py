#!/usr/bin/env python3
"""Compares the outputs two runs of stub_runtime.c printed with --print-all.

Usage: compare_outputs.py REFERENCE OTHER [rtol]. Every "  [j] value" line
must agree within rtol * max(1e-3, |reference|); the output headers (numel,
combine) must be equal.
"""
import re
import sys


def parse(path):
    outputs, current = [], None
    for line in open(path):
        header = re.match(r"output (\d+) \((\w+)\) numel (\d+)", line)
        if header:
            current = {"header": header.groups(), "values": []}
            outputs.append(current)
            continue
        value = re.match(r"\s+\[(\d+)\] (\S+)", line)
        if value and current is not None:
            current["values"].append(float(value.group(2)))
    return outputs


def main():
    ref, other = parse(sys.argv[1]), parse(sys.argv[2])
    rtol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-4
    if not ref or len(ref) != len(other):
        print("different numbers of outputs: %d vs %d" % (len(ref), len(other)))
        return 1
    for i, (a, b) in enumerate(zip(ref, other)):
        if a["header"] != b["header"] or len(a["values"]) != len(b["values"]):
            print("output %d: %s vs %s" % (i, a["header"], b["header"]))
            return 1
        for j, (x, y) in enumerate(zip(a["values"], b["values"])):
            if abs(x - y) > rtol * max(1e-3, abs(x)):
                print("output %d element %d: %.9g vs %.9g" % (i, j, x, y))
                return 1
    print("%d output(s) agree" % len(ref))
    return 0


if __name__ == "__main__":
    sys.exit(main())
