#!/usr/bin/env python3
"""End-to-end matrix: one model compiled with `pipewave-compile --inference`
for every stage count, schedule and microbatch count, run on as many ranks
as stages (pipewave-run) with the same data and default parameters, each
output compared with the unpartitioned run (S=1, M=1) through the runtime's
--expect/--tolerance.

Usage:
  inference_matrix.py --model MODEL.mlir --workdir DIR
                      --data NAME=D0xD1x... [--data ...]
                      [--stages 1,2,4] [--schedules gpipe,1f1b]
                      [--microbatches 1,4,8] [--tolerance 1e-5] [--jobs 2]

Data input k (in --data order) is element j = 0.1 * sin(0.7 * j + 0.1 + k),
float32, C order: deterministic and pure Python. Every configuration is
compiled once (--jobs compiles at a time); the runs are sequential. Prints
one line per configuration and a summary; exits 1 on any failure.
"""
import argparse
import concurrent.futures
import os
import struct
import subprocess
import sys


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "scripts"))
from npyio import sine_data, write_npy as write_array  # noqa: E402


def write_npy(path, shape, phase):
    count = 1
    for d in shape:
        count *= d
    write_array(path, shape, sine_data(count, phase))


def run(cmd):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    return proc.returncode, proc.stdout


def matrix_arguments(parser):
    """The options both matrices share (train_matrix.py adds its own)."""
    parser.add_argument("--model", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--data", action="append", default=[])
    parser.add_argument("--stages", default="1,2,4")
    parser.add_argument("--schedules", default="gpipe,1f1b")
    parser.add_argument("--microbatches", default="1,4,8")
    parser.add_argument("--jobs", type=int, default=2)


def write_data(workdir, specs):
    """Writes data input k of `specs` (NAME=D0xD1x...) with phase k into
    WORKDIR/NAME.npy; returns the runtime's --data arguments for them."""
    os.makedirs(workdir, exist_ok=True)
    data_args = []
    for k, spec in enumerate(specs):
        name, dims = spec.split("=")
        path = os.path.join(workdir, name + ".npy")
        write_npy(path, [int(d) for d in dims.split("x")], k)
        data_args += ["--data", "%s=%s" % (name, path)]
    return data_args


def main():
    parser = argparse.ArgumentParser()
    matrix_arguments(parser)
    parser.add_argument("--tolerance", default="1e-5")
    args = parser.parse_args()
    data_args = write_data(args.workdir, args.data)

    configs = [(s, sched, m)
               for s in [int(v) for v in args.stages.split(",")]
               for sched in args.schedules.split(",")
               for m in [int(v) for v in args.microbatches.split(",")]]
    reference = (1, args.schedules.split(",")[0], 1)
    if reference not in configs:
        configs.insert(0, reference)

    def binary(config):
        s, sched, m = config
        return os.path.join(args.workdir, "s%d-%s-m%d" % (s, sched, m))

    def compile_one(config):
        s, sched, m = config
        return run(["pipewave-compile", args.model, "-o", binary(config),
                    "--inference", "--stages", str(s), "--schedule", sched,
                    "--microbatches", str(m)])

    failures = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        compiled = dict(zip(configs, pool.map(compile_one, configs)))

    # The reference run writes every output to refdir/NAME.npy.
    refdir = os.path.join(args.workdir, "reference")
    os.makedirs(refdir, exist_ok=True)
    rc, out = compiled[reference]
    if rc == 0:
        rc, out = run([binary(reference)] + data_args + ["--out", refdir])
    if rc != 0:
        print("reference S=1 M=1 failed:\n" + out)
        return 1
    names = sorted(f[:-4] for f in os.listdir(refdir) if f.endswith(".npy"))
    print("reference S=1 M=1: outputs " + ", ".join(names))
    # The runtime accepts |out - expected| <= T * max(1, |expected|); scale T
    # by the smallest non-zero reference magnitude (below 1) so that the
    # check is relative: |out - expected| <= tolerance * |expected|.
    smallest = min([smallest_magnitude(os.path.join(refdir, n + ".npy"))
                    for n in names] + [1.0])
    tolerance = "%.6g" % (float(args.tolerance) * smallest)
    print("relative tolerance %s (runtime --tolerance %s)" %
          (args.tolerance, tolerance))
    expect = []
    for name in names:
        expect += ["--expect", "%s=%s" % (name, os.path.join(refdir,
                                                             name + ".npy"))]

    for config in configs:
        s, sched, m = config
        label = "S=%d %s M=%d" % (s, sched, m)
        rc, out = compiled[config]
        if rc != 0:
            print("%s: COMPILE FAILED\n%s" % (label, out))
            failures += 1
            continue
        cmd = [binary(config)] + data_args + expect + [
            "--tolerance", tolerance]
        if s > 1:
            cmd = ["pipewave-run", "-n", str(s)] + cmd
        rc, out = run(cmd)
        oks = out.count(": ok (")
        if rc != 0 or oks != len(names):
            print("%s: FAILED (exit %d)\n%s" % (label, rc, out))
            failures += 1
            continue
        print("%s: ok" % label)

    print("%d of %d configurations agree with S=1 M=1" %
          (len(configs) - failures, len(configs)))
    return 1 if failures else 0


def smallest_magnitude(path):
    """The smallest non-zero |value| of a float32/float64 .npy file (pure
    Python), or 1.0 if there is none."""
    with open(path, "rb") as f:
        data = f.read()
    header_len = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + header_len].decode("latin1")
    fmt = "d" if "<f8" in header else "f"
    body = data[10 + header_len:]
    values = struct.unpack("<%d%s" % (len(body) // struct.calcsize(fmt), fmt),
                           body)
    nonzero = [abs(v) for v in values if v != 0]
    return min(nonzero) if nonzero else 1.0


if __name__ == "__main__":
    sys.exit(main())
