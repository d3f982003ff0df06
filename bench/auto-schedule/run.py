#!/usr/bin/env python3
"""Does `--schedule auto` pick the schedule that measures fastest here?

For each example model, compiles it once with `--schedule auto` and reads
the candidates auto simulated (its remark's table: schedule, microbatches,
recompute, ranks, predicted step time, in auto's order, best first). Then
compiles every candidate (or the first --top of them) with those options
and measures it with pipewave-run: STEPS Adam steps, the median step time
of steps 2..STEPS (the runtime's "steps 2-K" line), best of --repeat
rounds (each round runs every candidate once, so a slow spell of a loaded
machine hits them all).
Prints one markdown table per model and whether auto's pick is within 10%
of the fastest measured candidate.

  python3 bench/auto-schedule/run.py BUILD_DIR [--steps 20] [--repeat 2]
      [--stages 4] [--models mlp,transformer] [--top N] [--device NAME]
      [--run-arg ARG]...

Models: mlp and transformer (the examples), mlp512 (8 layers of width 512
at batch 256, scripts/gen-mlp.py) and transformer256 (4 blocks of width
256, batch 8 x 32 tokens, bench/sim-vs-measured/gen-transformer.py), the
larger two generated. With --top N only auto's first N candidates are
measured, so "the fastest" is the fastest of those.

The measurements are of the machine it runs on (MPI ranks as processes,
oversubscribed when there are more ranks than cores).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))

# Each model: its file and its data inputs (name, shape).
MODELS = {
    "mlp": ("examples/mlp.mlir", [("x", [16, 64]), ("y", [16, 8])]),
    "transformer": ("examples/transformer.mlir",
                    [("x", [4, 8, 32]), ("y", [4, 8, 32])]),
}

# Generated models: the generator (a script and its arguments) and the
# data inputs.
GENERATED = {
    "mlp512": (["scripts/gen-mlp.py", "--layers", "8", "--width", "512",
                "--batch", "256"], [("x", [256, 64]), ("y", [256, 8])]),
    "transformer256": (["bench/sim-vs-measured/gen-transformer.py",
                        "--blocks", "4", "--width", "256", "--heads", "4",
                        "--batch", "8", "--seq", "32"],
                       [("x", [8, 32, 256]), ("y", [8, 32, 256])]),
}

ROW = re.compile(r"^  ([* ]) (\S+(?: (?:waves|chunks)=\d+)?)\s+(\d+) (none|full)"
                 r"\s+(\d+)\s+([0-9.]+) (s|ms|us|ns)\s")
UNIT = {"s": 1e3, "ms": 1.0, "us": 1e-3, "ns": 1e-6}


def run(cmd, **kwargs):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, **kwargs)
    if proc.returncode != 0:
        sys.exit("failed (%d): %s\n%s%s" % (proc.returncode, " ".join(cmd),
                                            proc.stdout, proc.stderr))
    return proc


def candidates(build, model, stages, device, work):
    """auto's table, in its order: dicts with the compile options."""
    cmd = [os.path.join(build, "bin", "pipewave-compile"), model, "--stages",
           str(stages), "--schedule", "auto", "--emit=pipe",
           "-o", os.path.join(work, "auto.pipe")]
    if device:
        cmd += ["--device", device]
    err = run(cmd).stderr
    rows = []
    for line in err.splitlines():
        m = ROW.match(line)
        if not m:
            continue
        name, *shape = m.group(2).split()
        options = ["--schedule", name]
        for item in shape:
            key, value = item.split("=")
            options += ["--" + key, value]
        rows.append({
            "chosen": m.group(1) == "*",
            "label": m.group(2),
            "microbatches": int(m.group(3)),
            "recompute": m.group(4),
            "ranks": int(m.group(5)),
            "predicted_ms": float(m.group(6)) * UNIT[m.group(7)],
            "options": options + ["--microbatches", m.group(3),
                                  "--recompute", m.group(4)],
        })
    device_line = re.search(r"candidates simulated on (\S+)", err)
    return rows, device_line.group(1) if device_line else "?"


def compile_candidate(build, model, row, binary):
    run([os.path.join(build, "bin", "pipewave-compile"), model, "-o", binary,
         "--stages", str(row["stages"]), "--quiet"] + row["options"])


def measure_once(build, inputs, row, binary, steps, run_args, work):
    data = []
    for name, _ in inputs:
        data += ["--data", "%s=%s" % (name, os.path.join(work, name + ".npy"))]
    out = run([os.path.join(build, "bin", "pipewave-run"), "-n",
               str(row["ranks"]), binary] + data +
              ["--steps", str(steps), "--optimizer", "adam", "--lr",
               "0.001"] + run_args).stdout
    m = re.search(r"^steps 2-\d+: mean ([0-9.]+) ms, median ([0-9.]+) ms",
                  out, re.M)
    if not m:
        sys.exit("no step summary in:\n" + out)
    return float(m.group(2))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--stages", type=int, default=4)
    parser.add_argument("--models", default="mlp,transformer")
    parser.add_argument("--top", type=int, default=0,
                        help="measure only auto's first N candidates")
    parser.add_argument("--device", default="")
    parser.add_argument("--run-arg", action="append", default=[],
                        help="an argument for every pipewave-run "
                        "(repeatable), e.g. --run-arg=--sends-in-list-order")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    for key in args.models.split(","):
        with tempfile.TemporaryDirectory() as work:
            if key in GENERATED:
                generator, inputs = GENERATED[key]
                path = key + ".mlir (" + " ".join(generator) + ")"
                model = os.path.join(work, key + ".mlir")
                with open(model, "w") as f:
                    f.write(run([sys.executable,
                                 os.path.join(ROOT, generator[0])] +
                                generator[1:]).stdout)
            else:
                path, inputs = MODELS[key]
                model = os.path.join(ROOT, path)
            for name, shape in inputs:
                run([sys.executable, os.path.join(ROOT, "scripts",
                                                  "make-npy.py"),
                     os.path.join(work, name + ".npy")] +
                    [str(d) for d in shape])
            rows, device = candidates(build, model, args.stages, args.device,
                                      work)
            if args.top:
                rows = rows[:args.top]
            # Every candidate once per round, the rounds one after the
            # other (a slow spell of a loaded machine hits all of them);
            # the best of the rounds counts.
            for i, row in enumerate(rows):
                row["stages"] = args.stages
                row["binary"] = os.path.join(work, "candidate%d" % i)
                compile_candidate(build, model, row, row["binary"])
            for _ in range(args.repeat):
                for row in rows:
                    median = measure_once(build, inputs, row, row["binary"],
                                          args.steps, args.run_arg, work)
                    row["measured_ms"] = min(row.get("measured_ms", median),
                                             median)
                    sys.stderr.write("%s: %s M=%d %s: %.3f ms\n" % (
                        key, row["label"], row["microbatches"],
                        row["recompute"], median))
        report(key, path, device, args, rows)


def report(key, path, device, args, rows):
    fastest = min(rows, key=lambda r: r["measured_ms"])
    by_measured = sorted(rows, key=lambda r: r["measured_ms"])
    print("### %s (%s, %d stages; auto simulated on %s)\n" %
          (key, path, args.stages, device))
    print("| auto's order | schedule | M | recompute | ranks | predicted "
          "| measured (median) | measured rank |")
    print("|---:|---|---:|---|---:|---:|---:|---:|")
    for i, row in enumerate(rows):
        mark = " (auto)" if row["chosen"] else ""
        print("| %d | %s%s | %d | %s | %d | %.4f ms | %.3f ms | %d |" % (
            i + 1, row["label"], mark, row["microbatches"], row["recompute"],
            row["ranks"], row["predicted_ms"], row["measured_ms"],
            by_measured.index(row) + 1))
    chosen = next(r for r in rows if r["chosen"])
    ratio = chosen["measured_ms"] / fastest["measured_ms"]
    print("\nauto picks %s M=%d recompute %s: %.3f ms measured; the fastest "
          "measured is %s M=%d recompute %s: %.3f ms; auto's pick is %.0f%% "
          "slower (%s 10%%).\n" % (
              chosen["label"], chosen["microbatches"], chosen["recompute"],
              chosen["measured_ms"], fastest["label"],
              fastest["microbatches"], fastest["recompute"],
              fastest["measured_ms"], 100 * (ratio - 1),
              "within" if ratio <= 1.10 else "NOT within"))


if __name__ == "__main__":
    main()
