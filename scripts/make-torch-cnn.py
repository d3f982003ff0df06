#!/usr/bin/env python3
"""make-torch-cnn.py [--out DIR]: real PyTorch ONNX exports of two small
CNNs for the importer and training tests.

PyTorch is used only here, to generate fixtures; the test suite
(test/Import/Onnx/torch-train-{cnn,sepcnn}.test) needs neither PyTorch nor
this script. The committed files test/Import/Onnx/Inputs/torch/{cnn,sepcnn}*
were produced
by PyTorch 2.15.0 (CPU, float32) and onnx 1.23.2 with:

    pip install torch numpy onnx
    python3 scripts/make-torch-cnn.py

The models, ordinary PyTorch modules whose forwards return the scalar
training loss, with fixed weights (torch.manual_seed) and one fixed data
batch (another PyTorch may draw other values or export other initializer
names):

  cnn  two blocks of nn.Conv2d(3x3, padding 1) -> ReLU -> nn.MaxPool2d(2)
       (1 -> 4 -> 8 channels on 8x8 images), torch.flatten, nn.Linear(32, 5)
       and F.cross_entropy; inputs x [8, 1, 8, 8] float32 and t [8] int64
       class labels.
  sepcnn  MobileNet-style: nn.Conv2d 3x3 (2 -> 8) -> ReLU, a depthwise
       nn.Conv2d 3x3 stride 2 (groups 8, 8 -> 16: channel multiplier 2) ->
       ReLU, a grouped 1x1 nn.Conv2d (groups 2, 16 -> 8) -> ReLU,
       nn.AvgPool2d(2), nn.AdaptiveAvgPool2d(1) (exported as
       GlobalAveragePool), torch.flatten, nn.Linear(8, 5) and
       F.cross_entropy; inputs x [8, 2, 8, 8] and t [8].

For each model NAME it writes, to DIR (default
test/Import/Onnx/Inputs/torch):

  NAME.onnx          torch.onnx.export(..., dynamo=False, opset_version=17,
                     training=EVAL, do_constant_folding=True), the loss the
                     only output, the initializers the initial weights;
  NAME-x.npy, NAME-t.npy  the data batch;
  NAME.json          the losses PyTorch's own training of the same module
                     records over 20 steps of torch.optim.SGD and 20 of
                     torch.optim.Adam (defaults except lr, foreach=False),
                     always on that batch: the loss before each step's
                     update, as the runtime's --log-json reports it. The
                     loss is the batch mean, so pipewave's microbatched
                     gradient accumulation (the mean of the microbatch
                     gradients) follows the same trajectory.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

from torchfixtures import fixture_dir, write_cases

BATCH, CLASSES = 8, 5


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.conv2 = nn.Conv2d(4, 8, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8 * 2 * 2, CLASSES)

    def forward(self, x, t):
        h = self.pool(F.relu(self.conv1(x)))
        h = self.pool(F.relu(self.conv2(h)))
        return F.cross_entropy(self.fc(torch.flatten(h, 1)), t)


class SepCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 8, 3, padding=1)
        self.dw = nn.Conv2d(8, 16, 3, stride=2, padding=1, groups=8)
        self.pw = nn.Conv2d(16, 8, 1, groups=2)
        self.pool = nn.AvgPool2d(2)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, CLASSES)

    def forward(self, x, t):
        h = F.relu(self.conv(x))
        h = F.relu(self.dw(h))
        h = F.relu(self.pw(h))
        h = self.gap(self.pool(h))
        return F.cross_entropy(self.fc(torch.flatten(h, 1)), t)


def sepcnn_case():
    torch.manual_seed(5)
    model = SepCNN()
    x = torch.randn(BATCH, 2, 8, 8)
    t = torch.randint(0, CLASSES, (BATCH,))
    return model, {"x": x, "t": t}, {"sgd": 0.2, "adam": 0.01}


def cnn_case():
    torch.manual_seed(4)
    model = CNN()
    x = torch.randn(BATCH, 1, 8, 8)
    t = torch.randint(0, CLASSES, (BATCH,))
    return model, {"x": x, "t": t}, {"sgd": 0.1, "adam": 0.01}


def main():
    out = fixture_dir(__doc__)
    write_cases(out, (("cnn", cnn_case), ("sepcnn", sepcnn_case)))


if __name__ == "__main__":
    main()
