#!/usr/bin/env python3
"""End-to-end training parity matrix: one model compiled with
`pipewave-compile` for every stage count, schedule, microbatch count and
recompute policy (and listed configurations, data-parallel ones among
them), each binary
trained for --steps SGD steps (momentum 0.9) and --steps Adam steps on as
many ranks as it has, with the same data and default parameters. The loss
after every step must equal the loss of the unpartitioned model trained on
the full batch (S=1, M=1, recompute none, one replica) within relative
tolerance --rtol.

Usage:
  train_matrix.py --model MODEL.mlir --workdir DIR
                  --data NAME=D0xD1x... [--data ...]
                  [--stages 1,2,4] [--schedules gpipe,1f1b]
                  [--microbatches 1,4,8] [--recompute none,full,selective]
                  [--configs S:R:SCHEDULE:M:RECOMPUTE,...]
                  [--steps 20] [--rtol 1e-5] [--jobs 2]

The cross product of --stages, --schedules, --microbatches and --recompute
is compiled with one replica (--stages "" leaves it out); every --configs
entry adds a configuration with R replicas of an S-stage pipeline (S*R
ranks, each replica taking 1/R of the global batch). Data input k (in --data order) is element
j = 0.1 * sin(0.7 * j + 0.1 + k), float32 (as inference_matrix.py writes
it). Every configuration is compiled once (--jobs compiles at a time); the
runs are sequential. Prints one line per configuration and a summary; exits
1 on any failure.
"""
import argparse
import concurrent.futures
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_losses import losses  # noqa: E402
from inference_matrix import matrix_arguments, run, write_data  # noqa: E402

OPTIMIZERS = [
    ("sgd", ["--optimizer", "sgd", "--momentum", "0.9", "--lr", "0.05"]),
    ("adam", ["--optimizer", "adam", "--lr", "0.001"]),
]


def parse_configs(text):
    configs = []
    for item in filter(None, text.split(",")):
        s, r, sched, m, policy = item.split(":")
        configs.append((int(s), sched, int(m), policy, int(r)))
    return configs


def label(config):
    s, sched, m, policy, r = config
    return "S=%d%s %s M=%d recompute=%s" % (
        s, " R=%d" % r if r > 1 else "", sched, m, policy)


def main():
    parser = argparse.ArgumentParser()
    matrix_arguments(parser)
    parser.add_argument("--recompute", default="none,full,selective")
    parser.add_argument("--configs", default="")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--rtol", type=float, default=1e-5)
    args = parser.parse_args()
    start = time.time()
    data_args = write_data(args.workdir, args.data)

    schedules = args.schedules.split(",")
    configs = [(s, sched, m, policy, 1)
               for s in [int(v) for v in filter(None, args.stages.split(","))]
               for sched in schedules
               for m in [int(v) for v in args.microbatches.split(",")]
               for policy in args.recompute.split(",")]
    configs += [c for c in parse_configs(args.configs) if c not in configs]
    reference = (1, schedules[0], 1, "none", 1)
    if reference not in configs:
        configs.insert(0, reference)

    def binary(config):
        s, sched, m, policy, r = config
        return os.path.join(args.workdir, "s%d-r%d-%s-m%d-%s" %
                            (s, r, sched, m, policy))

    def compile_one(config):
        s, sched, m, policy, r = config
        return run(["pipewave-compile", args.model, "-o", binary(config),
                    "--stages", str(s), "--schedule", sched,
                    "--microbatches", str(m), "--recompute", policy,
                    "--replicas", str(r)])

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        compiled = dict(zip(configs, pool.map(compile_one, configs)))
    compile_seconds = time.time() - start

    def train(config, optimizer, flags):
        s, _, _, _, r = config
        log = binary(config) + "-" + optimizer + ".json"
        if os.path.exists(log):
            os.remove(log)
        cmd = [binary(config)] + data_args + [
            "--steps", str(args.steps), "--log-json", log] + flags
        if s * r > 1:
            cmd = ["pipewave-run", "-n", str(s * r)] + cmd
        rc, out = run(cmd)
        if rc != 0:
            return None, "exit %d\n%s" % (rc, out)
        return losses(log), out

    rc, out = compiled[reference]
    if rc != 0:
        print("reference %s: COMPILE FAILED\n%s" % (label(reference), out))
        return 1
    refs = {}
    for optimizer, flags in OPTIMIZERS:
        got, out = train(reference, optimizer, flags)
        if got is None or len(got) != args.steps:
            print("reference %s %s failed: %s" %
                  (label(reference), optimizer, out))
            return 1
        refs[optimizer] = got
        print("reference %s %s: %d steps, loss %.6g -> %.6g" %
              (label(reference), optimizer, len(got), got[0], got[-1]))

    failures = 0
    for config in configs:
        rc, out = compiled[config]
        if rc != 0:
            print("%s: COMPILE FAILED\n%s" % (label(config), out))
            failures += 1
            continue
        results = []
        for optimizer, flags in OPTIMIZERS:
            got, out = train(config, optimizer, flags)
            ref = refs[optimizer]
            if got is None:
                results.append("%s FAILED (%s)" % (optimizer, out))
                continue
            if len(got) != len(ref):
                results.append("%s FAILED (%d steps, reference %d)" %
                               (optimizer, len(got), len(ref)))
                continue
            errors = [abs(a - b) / max(abs(b), 1e-30)
                      for a, b in zip(got, ref)]
            worst = max(errors)
            if worst > args.rtol:
                step = errors.index(worst)
                results.append(
                    "%s FAILED (step %d loss %.9g, reference %.9g, relative "
                    "error %.3g > %g)" % (optimizer, step + 1, got[step],
                                          ref[step], worst, args.rtol))
                continue
            results.append("%s ok (%.2g)" % (optimizer, worst))
        bad = any("FAILED" in r for r in results)
        failures += bad
        print("%s: %s" % (label(config), ", ".join(results)))

    print("%d of %d configurations agree with %s within %g for %d SGD and "
          "%d Adam steps" % (len(configs) - failures, len(configs),
                             label(reference), args.rtol, args.steps,
                             args.steps))
    sys.stderr.write("train_matrix: %d configurations, compiled in %.0f s, "
                     "%.0f s in all\n" % (len(configs), compile_seconds,
                                          time.time() - start))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
