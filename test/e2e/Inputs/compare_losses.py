#!/usr/bin/env python3
"""compare_losses.py REF.json RUN.json... [--rtol R]: every run's --log-json
loss trajectory must equal the reference's step by step within relative
tolerance R. Prints one line per run and exits 1 on the first mismatch."""

import json
import sys


def losses(path):
    with open(path) as f:
        return [json.loads(line)["loss"] for line in f if line.strip()]


def main(argv):
    rtol = 1e-5
    if "--rtol" in argv:
        i = argv.index("--rtol")
        rtol = float(argv[i + 1])
        del argv[i:i + 2]
    ref_path, runs = argv[0], argv[1:]
    ref = losses(ref_path)
    if not ref:
        print("%s: no steps logged" % ref_path)
        return 1
    print("reference %s: %d steps, loss %.6g -> %.6g" %
          (ref_path, len(ref), ref[0], ref[-1]))
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
