#!/usr/bin/env python3
"""gpu-torch-step.py MODEL STEPS: PyTorch eager on the GPU, for
scripts/gpu-check.sh. Trains examples/MODEL.mlir (mlp or transformer) as
scripts/make-torch-reference.py builds it op by op, on the same initial
values and global batch as the runtime's (test/e2e/Inputs/torch/
make_inputs.py), with torch.optim.Adam (lr 0.001) for STEPS steps, and
prints the mean time of steps 2..STEPS in milliseconds (each step
synchronised, as the runtime's step time is)."""

import importlib.util
import os
import sys
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv):
    if len(argv) != 2 or argv[0] not in ("mlp", "transformer"):
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    name, steps = argv[0], int(argv[1])
    torch.set_default_device("cuda")
    spec = importlib.util.spec_from_file_location(
        "reference", os.path.join(ROOT, "scripts", "make-torch-reference.py"))
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    args = ref.make_inputs.read_arguments(
        os.path.join(ROOT, "examples", name + ".mlir"))
    values = ref.make_inputs.make_values(args)
    params, data = {}, {}
    for arg, shape, is_param in args:
        t = torch.tensor(values[arg][1], dtype=torch.float32).reshape(shape)
        if is_param:
            params[arg] = torch.nn.Parameter(t)
        else:
            data[arg] = t
    opt = torch.optim.Adam(list(params.values()), lr=0.001)
    times = []
    for _ in range(steps):
        torch.cuda.synchronize()
        begin = time.perf_counter()
        opt.zero_grad()
        loss = ref.MODELS[name](params, data)
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - begin)
    rest = times[1:] or times
    print("%.3f" % (1e3 * sum(rest) / len(rest)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
