#!/usr/bin/env python3
"""Imports every ONNX model given twice (same bytes, model and weights) and
round-trips the result through pipewave-opt (print, parse, print: same text).
Prints one line per model and exits non-zero on the first difference.

  roundtrip.py WORKDIR MODEL.onnx...
"""
import os
import subprocess
import sys


def run(args):
    return subprocess.run(args, check=True, capture_output=True).stdout


def main():
    work, models = sys.argv[1], sys.argv[2:]
    os.makedirs(work, exist_ok=True)
    failed = False
    for model in sorted(models, key=os.path.basename):
        name = os.path.splitext(os.path.basename(model))[0]
        outs = []
        for attempt in ("a", "b"):
            mlir = os.path.join(work, f"{name}.{attempt}.mlir")
            weights = os.path.join(work, f"{name}.{attempt}.safetensors")
            run(["pipewave-import", model, "-o", mlir, "--weights", weights])
            outs.append((open(mlir, "rb").read(), open(weights, "rb").read()
                         if os.path.exists(weights) else b""))
        same = outs[0] == outs[1]
        once = run(["pipewave-opt", os.path.join(work, f"{name}.a.mlir")])
        printed = os.path.join(work, f"{name}.printed.mlir")
        open(printed, "wb").write(once)
        twice = run(["pipewave-opt", printed])
        stable = once == twice
        print(f"{name}: deterministic {'yes' if same else 'NO'}, "
              f"round-trip {'yes' if stable else 'NO'}")
        failed |= not (same and stable)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
