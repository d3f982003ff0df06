#!/usr/bin/env python3
"""Print examples/transformer.mlir with N blocks instead of 2.

The example's second block (its "// ---- Block 1 ----" section, which reads
%l0_out and defines %l1_*) is the template of blocks 1 .. N-1, and its
parameter arguments (%l1_*) those of every added block; block 0, the shared
constants, the final LayerNorm and the loss stay as they are (the loss reads
the last block's output). Same batch, sizes and loss scale as the example.

  python3 bench/autodiff/gen-transformer.py --blocks 48 > transformer48.mlir
"""
import argparse
import os
import re
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--blocks", type=int, default=2)
    parser.add_argument("--example", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
        "transformer.mlir"))
    args = parser.parse_args()
    if args.blocks < 1:
        sys.exit("--blocks must be at least 1")
    with open(args.example) as f:
        text = f.read()

    head, rest = text.split("  // ---- Block 1 ----\n")
    block1, tail = rest.split("\n  // Final LayerNorm")
    tail = "  // Final LayerNorm" + tail
    params1 = [line for line in head.splitlines(True)
               if line.lstrip().startswith("%l1_")]
    head = "".join(line for line in head.splitlines(True)
                   if line not in params1)
    # Block 0's parameters end before lnf_gamma: add the others there.
    anchor = "    %lnf_gamma:"
    new_params = "".join(
        line.replace("l1_", "l%d_" % k)
        for k in range(1, args.blocks) for line in params1)
    head = head.replace(anchor, new_params + anchor, 1)

    blocks = ""
    for k in range(1, args.blocks):
        body = block1.replace("%l1_", "%L_").replace("%l0_out",
                                                     "%%l%d_out" % (k - 1))
        blocks += "  // ---- Block %d ----\n" % k + body.replace(
            "%L_", "%%l%d_" % k) + "\n"
    last = "%%l%d_out" % (args.blocks - 1)
    tail = tail.replace("%l1_out", last)
    if args.blocks == 1:
        head = head.rstrip() + "\n"
    # The header comment describes the example; say what this is instead.
    head = re.sub(r"\A(//[^\n]*\n)+",
                  "// examples/transformer.mlir with %d blocks "
                  "(bench/autodiff/gen-transformer.py).\n" % args.blocks,
                  head)
    sys.stdout.write(head + blocks + tail)


if __name__ == "__main__":
    main()
