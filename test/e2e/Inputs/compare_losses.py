#!/usr/bin/env python3
"""compare_losses.py REF.json RUN.json... [--rtol R] [--ref-run NAME]: every
run's --log-json loss trajectory must equal the reference's step by step
within relative tolerance R. Prints one line per run and exits 1 on the first
mismatch.

The reference is a --log-json file (one JSON object per step), or with
--ref-run NAME one JSON object holding recorded trajectories, as the PyTorch
(and JAX) fixture scripts write them: {"torch": VERSION (or "jax"), "runs": {NAME: {"lr": LR,
"losses": [...]}, ...}}."""

import json
import sys


def losses(path):
    with open(path) as f:
        return [json.loads(line)["loss"] for line in f if line.strip()]


def recorded_losses(path, run):
    """The trajectory `run` of a fixture file and a description of it."""
    with open(path) as f:
        doc = json.load(f)
    runs = doc.get("runs", {})
    if run not in runs:
        raise SystemExit("%s: no run '%s' (has %s)" %
                         (path, run, ", ".join(sorted(runs)) or "none"))
    entry = runs[run]
    what = "%s[%s]" % (path, run)
    for framework in ("torch", "jax"):
        if framework in doc:
            what += " (%s %s" % (framework, doc[framework])
            if "lr" in entry:
                what += ", lr %g" % entry["lr"]
            what += ")"
    return [float(v) for v in entry["losses"]], what


def main(argv):
    rtol = 1e-5
    if "--rtol" in argv:
        i = argv.index("--rtol")
        rtol = float(argv[i + 1])
        del argv[i:i + 2]
    ref_run = None
    if "--ref-run" in argv:
        i = argv.index("--ref-run")
        ref_run = argv[i + 1]
        del argv[i:i + 2]
    ref_path, runs = argv[0], argv[1:]
    if ref_run is None:
        ref, what = losses(ref_path), ref_path
    else:
        ref, what = recorded_losses(ref_path, ref_run)
    if not ref:
        print("%s: no steps logged" % ref_path)
        return 1
    print("reference %s: %d steps, loss %.6g -> %.6g" %
          (what, len(ref), ref[0], ref[-1]))
    for path in runs:
        got = losses(path)
        if len(got) != len(ref):
            print("%s: %d steps, reference has %d" % (path, len(got), len(ref)))
            return 1
        worst = max(abs(a - b) / max(abs(b), 1e-30) for a, b in zip(got, ref))
        if worst > rtol:
            step = max(range(len(ref)),
                       key=lambda k: abs(got[k] - ref[k]) / max(abs(ref[k]), 1e-30))
            print("%s: step %d loss %.9g, reference %.9g (relative error %.3g > %g)"
                  % (path, step + 1, got[step], ref[step], worst, rtol))
            return 1
        print("%s: %d steps equal within %g (max relative error %.3g)" %
              (path, len(got), rtol, worst))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
