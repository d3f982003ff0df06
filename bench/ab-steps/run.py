#!/usr/bin/env python3
"""Step time of two builds side by side (before / after a change).

    python3 bench/ab-steps/run.py --before BUILD_A --after BUILD_B \
        [--rounds 5] [--rows transformer256:2:zb-h1,mlp512:4:zb-v,...]

Each row (MODEL:STAGES:SCHEDULE; models mlp, transformer from examples/,
mlp512 and transformer256 as bench/sim-vs-measured makes them) is compiled
by each build's pipewave-compile (2 ranks, 4 microbatches) and trained
with that build's pipewave-run, Adam, single-threaded OpenBLAS: 30 steps
for the larger models, 300 for the examples. The two alternate within a
round (AB, then BA), so a slow spell of a shared machine falls on both.
Prints, per row, the median over the rounds of each build's median step
(pipewave-run's "steps 2-N" line), their ratio, and the ratio per round.
Not run in CI.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, stdin=subprocess.DEVNULL, **kw)


def inputs(work):
    """Writes the models and data; returns {model: (source, data args)}."""
    npy = os.path.join(ROOT, "scripts", "make-npy.py")
    for name, shape in [("x", "16 64"), ("y", "16 8"), ("tx", "4 8 32"),
                        ("ty", "4 8 32"), ("x512", "256 64"),
                        ("y512", "256 8"), ("tx256", "8 32 256"),
                        ("ty256", "8 32 256")]:
        run([sys.executable, npy, os.path.join(work, name + ".npy")] +
            shape.split())
    with open(os.path.join(work, "mlp512.mlir"), "w") as f:
        run([sys.executable, os.path.join(ROOT, "scripts", "gen-mlp.py"),
             "--layers", "8", "--width", "512", "--batch", "256"], stdout=f)
    with open(os.path.join(work, "transformer256.mlir"), "w") as f:
        run([sys.executable,
             os.path.join(ROOT, "bench", "sim-vs-measured", "gen-transformer.py"),
             "--blocks", "4", "--width", "256", "--heads", "4", "--batch", "8",
             "--seq", "32"], stdout=f)
    data = lambda x, y: ["--data", "x=" + os.path.join(work, x + ".npy"),
                         "--data", "y=" + os.path.join(work, y + ".npy")]
    return {
        "mlp": (os.path.join(ROOT, "examples", "mlp.mlir"), data("x", "y")),
        "transformer": (os.path.join(ROOT, "examples", "transformer.mlir"),
                        data("tx", "ty")),
        "mlp512": (os.path.join(work, "mlp512.mlir"), data("x512", "y512")),
        "transformer256": (os.path.join(work, "transformer256.mlir"),
                           data("tx256", "ty256")),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rows", default="transformer256:2:zb-h1,"
                        "transformer256:4:zb-v,transformer256:2:1f1b,"
                        "mlp512:2:zb-h1,mlp512:4:zb-v,transformer:2:zb-h1,"
                        "transformer:4:zb-v,mlp:2:zb-h1,mlp:4:zb-v")
    args = parser.parse_args()
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    builds = {"before": args.before, "after": args.after}
    rows = [r.split(":") for r in args.rows.split(",")]
    times = {}
    with tempfile.TemporaryDirectory() as work:
        models = inputs(work)
        for model, stages, schedule in rows:
            for side, build in builds.items():
                run([os.path.join(build, "bin", "pipewave-compile"),
                     models[model][0], "-o",
                     os.path.join(work, "%s-%s-%s-%s" % (side, model, stages, schedule)),
                     "--quiet", "--stages", stages, "--microbatches", "4",
                     "--schedule", schedule])
        print("load average before: " + open("/proc/loadavg").read().strip())
        for r in range(args.rounds):
            for model, stages, schedule in rows:
                steps = "30" if model.endswith(("512", "256")) else "300"
                order = ["before", "after"] if r % 2 == 0 else ["after", "before"]
                for side in order:
                    out = run([os.path.join(builds[side], "bin", "pipewave-run"),
                               "-n", "2",
                               os.path.join(work, "%s-%s-%s-%s" % (side, model, stages, schedule)),
                               *models[model][1], "--steps", steps,
                               "--optimizer", "adam", "--lr", "0.001"],
                              capture_output=True, text=True).stdout
                    median = re.search(r"median ([0-9.]+) ms", out)
                    times.setdefault((model, stages, schedule, side), []).append(
                        float(median.group(1)))
        print("load average after: " + open("/proc/loadavg").read().strip())
    print()
    print("| model | schedule | S | before: median step (ms) | after (ms) | after / before | per round |")
    print("|---|---|---:|---:|---:|---:|---|")
    for model, stages, schedule in rows:
        b = times[(model, stages, schedule, "before")]
        a = times[(model, stages, schedule, "after")]
        print("| %s | %s | %s | %.3f | %.3f | %.2f | %s |" % (
            model, schedule, stages, statistics.median(b), statistics.median(a),
            statistics.median(a) / statistics.median(b),
            " ".join("%.2f" % (y / x) for x, y in zip(b, a))))


if __name__ == "__main__":
    main()
