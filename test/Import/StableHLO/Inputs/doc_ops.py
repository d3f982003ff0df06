"""Prints the operations of the "Supported ops" table of docs/stablehlo.md,
one per line, sorted (to compare with `pipewave-import --list-stablehlo-ops`).

Usage: doc_ops.py docs/stablehlo.md
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
            m = re.match(r"^\| *([^|]*?) *\|", line)
            if section and m:
                ops.update(re.findall(r"`((?:stablehlo|chlo)\.[a-z_]+)`",
                                      m.group(1)))
    for op in sorted(ops):
        print(op)


if __name__ == "__main__":
    main()
