"""Prints the ops of the "Supported ops" table of an importer's document,
one per line, sorted, to compare with the importer's own list:

  doc_ops.py docs/onnx.md        ONNX op names (`pipewave-import --list-ops`):
                                 the first cell's comma-separated names;
  doc_ops.py docs/stablehlo.md   `stablehlo.*`/`chlo.*` names in backticks
                                 in the first cell
                                 (`pipewave-import --list-stablehlo-ops`).
"""
import re
import sys


def first_cell_ops(cell, stablehlo):
    if stablehlo:
        return re.findall(r"`((?:stablehlo|chlo)\.[a-z_]+)`", cell)
    if not re.match(r"[A-Z]", cell) or cell == "Op":
        return []
    return [op.strip() for op in cell.split(",")]


def main():
    stablehlo = sys.argv[1].endswith("stablehlo.md")
    ops = set()
    section = False
    with open(sys.argv[1]) as f:
        for line in f:
            if line.startswith("## "):
                section = line.strip() == "## Supported ops"
                continue
            m = re.match(r"^\| *([^|]*?) *\|", line)
            if section and m:
                ops.update(first_cell_ops(m.group(1), stablehlo))
    for op in sorted(ops):
        print(op)


if __name__ == "__main__":
    main()
