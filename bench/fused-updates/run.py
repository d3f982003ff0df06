#!/usr/bin/env python3
"""The SGD update in the weight-gradient products (pipe-fuse-updates) against
the optimizer's own pass, on the peer bench's full-batch MLP.

    python3 bench/fused-updates/run.py --build BUILD [--pairs 6] [--steps 60]

Compiles the MLP of scripts/gen-mlp.py --layers 8 --width 512 --batch 256
(one stage, one microbatch, --matmul auto) with and without
--no-fuse-updates, then alternates the two binaries (off, on), each pinned to
one core for --steps SGD steps with --trace. Prints per run the medians of
the forward, backward and optimizer slices (steps 6 on), their sum, and the
(backward + optimizer) / forward ratio, which a slow spell of a shared
machine moves less than the times; then the median ratio of each build.
Not run in CI.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def slices(trace_path):
    with open(trace_path) as f:
        data = json.load(f)
    events = data["traceEvents"] if isinstance(data, dict) else data
    by = {}
    for e in events:
        if e.get("ph") == "X":
            by.setdefault(e["name"], []).append(e["dur"])
    med = lambda name: statistics.median(by[name][5:])
    return med("F s0 mb0"), med("B s0 mb0"), med("optimizer s0")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--pairs", type=int, default=6)
    ap.add_argument("--steps", type=int, default=60)
    args = ap.parse_args()
    bindir = os.path.join(os.path.abspath(args.build), "bin")
    work = tempfile.mkdtemp(prefix="fused-updates-")
    try:
        model = os.path.join(work, "mlp.mlir")
        with open(model, "w") as f:
            subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen-mlp.py"),
                            "--layers", "8", "--width", "512", "--batch", "256",
                            "--in", "512", "--out", "512"], check=True, stdout=f)
        for name, size in (("x", "512"), ("y", "512")):
            subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make-npy.py"),
                            os.path.join(work, name + ".npy"), "256", size], check=True)
        builds = {"off": ["--no-fuse-updates"], "on": []}
        for name, flags in builds.items():
            subprocess.run([os.path.join(bindir, "pipewave-compile"), model, "-o",
                            os.path.join(work, name), "--stages", "1", "--microbatches",
                            "1", "--schedule", "gpipe", "--matmul", "auto", "--quiet"]
                           + flags, check=True)
        pin = ["taskset", "-c", "1"] if shutil.which("taskset") and os.cpu_count() > 1 else []
        ratios = {name: [] for name in builds}
        print("run  forward  backward  optimizer  sum (us)  (B+opt)/F")
        for _ in range(args.pairs):
            for name in builds:
                trace = os.path.join(work, "trace.json")
                subprocess.run(pin + [os.path.join(work, name), "--data",
                                      "x=" + os.path.join(work, "x.npy"), "--data",
                                      "y=" + os.path.join(work, "y.npy"), "--steps",
                                      str(args.steps), "--optimizer", "sgd", "--lr", "0.01",
                                      "--trace", trace],
                               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                f, b, o = slices(trace)
                ratios[name].append((b + o) / f)
                print("%-4s %7.0f  %8.0f  %9.0f  %8.0f  %.3f" % (name, f, b, o, f + b + o,
                                                               ratios[name][-1]))
        for name in builds:
            print("%s: median (B+opt)/F %.3f" % (name, statistics.median(ratios[name])))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
