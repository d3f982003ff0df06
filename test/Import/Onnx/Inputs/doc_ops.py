"""Prints the ops of the "Supported ops" table of docs/onnx.md, one per line,
sorted (to compare with `pipewave-import --list-ops`).

Usage: doc_ops.py docs/onnx.md
"""
import re
import sys


def main():
    ops = set()
    section = False
    with open(sys.argv[1]) as f:
        for line in f:
            if line.startswith("## "):
                section = line.strip() == "## Supported ops"
                continue
            m = re.match(r"^\| *([A-Z][^|]*?) *\|", line)
            if section and m and m.group(1) != "Op":
                ops.update(op.strip() for op in m.group(1).split(","))
    for op in sorted(ops):
        print(op)


if __name__ == "__main__":
    main()
