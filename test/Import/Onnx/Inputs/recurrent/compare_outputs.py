"""compare_outputs.py WANT_DIR PREFIX GOT_DIR [--rtol R] [--atol A]: every
WANT_DIR/PREFIX-want-NAME.npy against GOT_DIR/NAME.npy (the runtime's --out
files): same shape, and |got - want| <= atol + rtol * |want| everywhere.
Prints one line per output and a summary; exits 1 on a difference."""
import argparse
import glob
import os
import sys

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("want_dir")
ap.add_argument("prefix")
ap.add_argument("got_dir")
ap.add_argument("--rtol", type=float, default=1e-5)
ap.add_argument("--atol", type=float, default=1e-6)
opts = ap.parse_args()
bad = 0
wants = sorted(glob.glob(os.path.join(opts.want_dir,
                                      opts.prefix + "-want-*.npy")))
for path in wants:
    name = os.path.basename(path)[len(opts.prefix + "-want-"):-len(".npy")]
    want = np.load(path)
    got_path = os.path.join(opts.got_dir, name + ".npy")
    if not os.path.exists(got_path):
        print("%s: not written" % name)
        bad += 1
        continue
    got = np.load(got_path)
    if got.shape != want.shape:
        print("%s: shape %s, want %s" % (name, got.shape, want.shape))
        bad += 1
        continue
    err = np.abs(got.astype(np.float64) - want)
    ok = bool(np.all(err <= opts.atol + opts.rtol * np.abs(want)))
    print("%s %s: %s (max abs error %.3g)" %
          (name, list(want.shape), "equal" if ok else "DIFFERENT", err.max()))
    bad += not ok
print("%d outputs, %d different" % (len(wants), bad))
sys.exit(1 if bad or not wants else 0)
