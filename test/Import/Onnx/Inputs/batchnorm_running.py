#!/usr/bin/env python3
"""batchnorm_running.py OUT.json MICROBATCHES STEPS: the running statistics
of Inputs/batchnorm_train.onnx (BatchNormalization over x [4, 3, 2, 2],
running mean [0.1, 0.2, 0.3], variance [1.0, 1.5, 0.5], PyTorch momentum
0.1) after STEPS steps on make-npy.py's x, each step moving them once per
microbatch (in order) towards that microbatch's mean and unbiased
variance, as PyTorch with gradient accumulation; written in the fixture
format compare_state.py reads (run "ref").

batchnorm_running.py --eval OUT.npy: the loss of Inputs/batchnorm_eval.onnx
on that x (the mean of the output normalised with the running statistics,
with g and b), a scalar .npy. Pure Python."""

import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "..", "scripts"))
from npyio import sine_data, write_npy  # noqa: E402

N, C, HW = 4, 3, 4


def main(out, microbatches, steps):
    x = sine_data(N * C * HW)
    mean, var = [0.1, 0.2, 0.3], [1.0, 1.5, 0.5]
    rows = N // microbatches
    m = 1.0 - 0.9  # the ONNX momentum is 0.9
    for _ in range(steps):
        for k in range(microbatches):
            for c in range(C):
                v = [x[(n * C + c) * HW + i]
                     for n in range(k * rows, (k + 1) * rows)
                     for i in range(HW)]
                mu = math.fsum(v) / len(v)
                unbiased = math.fsum((a - mu) ** 2 for a in v) / (len(v) - 1)
                mean[c] = (1 - m) * mean[c] + m * mu
                var[c] = (1 - m) * var[c] + m * unbiased
    with open(out, "w") as f:
        json.dump({"runs": {"ref": {"running": {"rm": mean, "rv": var}}}}, f)


def eval_loss(out):
    x = sine_data(N * C * HW)
    mean, var = [0.1, 0.2, 0.3], [1.0, 1.5, 0.5]
    g, b = [1.0, 0.5, 2.0], [0.0, 0.1, -0.2]
    y = [(x[j] - mean[(j // HW) % C]) / math.sqrt(var[(j // HW) % C] + 1e-5)
         * g[(j // HW) % C] + b[(j // HW) % C] for j in range(len(x))]
    write_npy(out, [], [math.fsum(y) / len(y)])


if __name__ == "__main__":
    if sys.argv[1] == "--eval":
        eval_loss(sys.argv[2])
    else:
        main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
