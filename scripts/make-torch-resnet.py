#!/usr/bin/env python3
"""make-torch-resnet.py [--out DIR]: a real PyTorch ONNX export of a small
ResNet-style CNN with BatchNorm in training mode, for the importer and
training tests.

PyTorch is used only here, to generate fixtures; the test suite
(test/Import/Onnx/torch-train-resnet.test) needs neither PyTorch nor this
script. The committed files test/Import/Onnx/Inputs/torch/resnet* were
produced by PyTorch 2.15.0 (CPU, float32) and onnx 1.23.2 with:

    pip install torch numpy onnx
    python3 scripts/make-torch-resnet.py

The model, an ordinary PyTorch module whose forward returns the scalar
training loss, with fixed weights (torch.manual_seed) and one fixed data
batch: a stem nn.Conv2d 3x3 (2 -> 8, no bias) -> nn.BatchNorm2d -> ReLU; a
basic residual block (two conv3x3/BatchNorm, identity shortcut, ReLU after
the add); a downsampling block (8 -> 16 channels, stride 2, a 1x1
conv/BatchNorm shortcut); nn.AdaptiveAvgPool2d(1), torch.flatten,
nn.Linear(16, 5) and F.cross_entropy; inputs x [8, 2, 8, 8] float32 and
t [8] int64 class labels.

It writes, to DIR (default test/Import/Onnx/Inputs/torch):

  resnet.onnx        torch.onnx.export(..., dynamo=False, opset_version=17,
                     training=TRAINING, do_constant_folding=False), the
                     loss the only output, the initializers the initial
                     weights and running statistics (BatchNormalization
                     with training_mode=1);
  resnet-x.npy, resnet-t.npy  the data batch;
  resnet.json        the losses PyTorch's own training of the same module
                     records over 20 steps of torch.optim.SGD and 20 of
                     torch.optim.Adam (defaults except lr, foreach=False),
                     always on that batch, each step accumulating the
                     gradients of MICROBATCHES = 4 microbatches of 2 rows
                     (each BatchNorm normalising every microbatch with its
                     own statistics, and updating its running statistics
                     once per microbatch): the loss before each step's
                     update, as the runtime's --log-json reports it, and
                     the running means and variances after the 20 steps
                     ("running", by initializer name).
"""

import os

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F

from torchfixtures import (OPSET, STEPS, export, fixture_dir, train,
                           write_doc)

BATCH, CLASSES, MICROBATCHES = 8, 5, 4


def conv_bn(cin, cout, k, stride):
    return nn.Sequential(
        nn.Conv2d(cin, cout, k, stride=stride, padding=k // 2, bias=False),
        nn.BatchNorm2d(cout))


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.a = conv_bn(cin, cout, 3, stride)
        self.b = conv_bn(cout, cout, 3, 1)
        self.short = (conv_bn(cin, cout, 1, stride)
                      if stride != 1 or cin != cout else nn.Identity())

    def forward(self, x):
        return F.relu(self.b(F.relu(self.a(x))) + self.short(x))


class ResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = conv_bn(2, 8, 3, 1)
        self.block1 = Block(8, 8, 1)
        self.block2 = Block(8, 16, 2)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, CLASSES)

    def forward(self, x, t):
        h = F.relu(self.stem(x))
        h = self.block2(self.block1(h))
        return F.cross_entropy(self.fc(torch.flatten(self.gap(h), 1)), t)


def make():
    torch.manual_seed(6)
    model = ResNet()
    x = torch.randn(BATCH, 2, 8, 8)
    t = torch.randint(0, CLASSES, (BATCH,))
    return model, {"x": x, "t": t}


def running(model):
    return {name: [float(v) for v in b.tolist()]
            for name, b in model.named_buffers()
            if name.endswith("running_mean") or name.endswith("running_var")}


def main():
    out = fixture_dir(__doc__)
    model, data = make()
    initial = running(model)
    export(model, data, out, "resnet", training=True)
    # Tracing ran the forward once in training mode, which moved the running
    # statistics: the initializers get back the module's initial values.
    path = os.path.join(out, "resnet.onnx")
    proto = onnx.load(path)
    for init in proto.graph.initializer:
        if init.name in initial:
            values = np.array(initial[init.name], dtype=np.float32)
            init.CopyFrom(onnx.numpy_helper.from_array(values, init.name))
    onnx.save(proto, path)
    lrs = {"sgd": 0.1, "adam": 0.01}
    runs = {}
    for optimizer in ("sgd", "adam"):
        model, data = make()
        losses = train(model, data, optimizer, lrs[optimizer],
                       microbatches=MICROBATCHES)
        runs[optimizer] = {"optimizer": optimizer, "lr": lrs[optimizer],
                           "steps": STEPS, "microbatches": MICROBATCHES,
                           "losses": losses, "running": running(model)}
        print("resnet %s lr %g: loss %.6g -> %.6g" %
              (optimizer, lrs[optimizer], losses[0], losses[-1]))
    write_doc(out, "resnet", {"model": "resnet.onnx", "opset": OPSET,
                              "torch": torch.__version__.split("+")[0],
                              "runs": runs})


if __name__ == "__main__":
    main()
