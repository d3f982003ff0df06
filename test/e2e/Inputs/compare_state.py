#!/usr/bin/env python3
"""compare_state.py REF.json RUN CHECKPOINT_DIR... [--tol T]: the running
statistics a PyTorch fixture recorded (REF.json: {"runs": {RUN: {"running":
{NAME: [values]}}}}) must equal the tensors of those names in each
checkpoint directory (its rank-*.safetensors files together) within T,
relative to max(1, |reference|). Prints one line per checkpoint and exits 1
on the first mismatch or missing tensor."""

import array
import glob
import json
import os
import struct
import sys


def read_safetensors(path):
    with open(path, "rb") as f:
        size = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(size))
        data = f.read()
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] != "F32":
            continue
        begin, end = info["data_offsets"]
        values = array.array("f", data[begin:end])
        if sys.byteorder != "little":
            values.byteswap()
        tensors[name] = list(values)
    return tensors


def main(argv):
    tol = 1e-5
    if "--tol" in argv:
        i = argv.index("--tol")
        tol = float(argv[i + 1])
        del argv[i:i + 2]
    if len(argv) < 3:
        raise SystemExit(__doc__)
    with open(argv[0]) as f:
        reference = json.load(f)["runs"][argv[1]]["running"]
    for directory in argv[2:]:
        tensors = {}
        for path in sorted(glob.glob(os.path.join(directory,
                                                  "rank-*.safetensors"))):
            tensors.update(read_safetensors(path))
        worst = 0.0
        for name, values in sorted(reference.items()):
            if name not in tensors:
                print("%s: no tensor '%s'" % (directory, name))
                return 1
            got = tensors[name]
            if len(got) != len(values):
                print("%s: '%s' has %d values, the reference %d" %
                      (directory, name, len(got), len(values)))
                return 1
            err = max(abs(g - r) / max(1.0, abs(r))
                      for g, r in zip(got, values))
            worst = max(worst, err)
            if err > tol:
                print("%s: '%s' differs by %.3g (tolerance %g)" %
                      (directory, name, err, tol))
                return 1
        print("%s: %d running statistics equal within %g" %
              (os.path.basename(os.path.normpath(directory)), len(reference),
               tol))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
