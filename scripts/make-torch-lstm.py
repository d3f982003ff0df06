#!/usr/bin/env python3
"""make-torch-lstm.py [--out DIR]: real PyTorch ONNX exports of two small
recurrent sequence models (nn.LSTM and nn.GRU) for the importer and
training tests.

PyTorch is used only here, to generate fixtures; the test suite
(test/Import/Onnx/torch-train-lstm.test, torch-train-gru.test) needs neither
PyTorch nor this script. The committed files
test/Import/Onnx/Inputs/torch/{lstm,gru}* were produced by PyTorch 2.15.0
(CPU, float32) and onnx 1.23.2 with:

    pip install torch numpy onnx
    python3 scripts/make-torch-lstm.py

The models, ordinary PyTorch modules whose forwards return the scalar
training loss, with fixed weights (torch.manual_seed) and one fixed data
batch of token ids (another PyTorch may draw other values or export other
initializer names):

  lstm  nn.Embedding(16, 16) -> nn.LSTM(16, 16, num_layers=2,
        batch_first=True) -> nn.Linear(16, 16) -> F.cross_entropy over
        every position; inputs x [8, 6] and t [8, 6] int64 (vocabulary 16,
        batch 8, sequence 6). Exported as two LSTM nodes (one per layer,
        layout 0, between Transpose nodes).
  gru   nn.Embedding(16, 12) -> nn.GRU(12, 12) time-major (the forward
        transposes to [seq, batch, ...] and back) -> nn.Linear(12, 16) ->
        F.cross_entropy; inputs x [8, 6] and t [8, 6]. Exported as one GRU
        node with linear_before_reset = 1.

For each model NAME it writes, to DIR (default
test/Import/Onnx/Inputs/torch):

  NAME.onnx          torch.onnx.export(..., dynamo=False, opset_version=17,
                     training=EVAL, do_constant_folding=True), the loss the
                     only output, the initializers the initial weights (the
                     exporter reorders the gates and concatenates the two
                     biases into ONNX's W, R and B: the same parameters, so
                     the elementwise SGD and Adam updates follow PyTorch's);
  NAME-x.npy, NAME-t.npy  the data batch;
  NAME.json          the losses PyTorch's own training of the same module
                     records over 20 steps of torch.optim.SGD and 20 of
                     torch.optim.Adam (defaults except lr, foreach=False),
                     always on that batch, each step accumulating the
                     gradients of MICROBATCHES = 4 microbatches of 2 rows
                     (the loss of each divided by 4), as pipewave does: the
                     loss before each step's update, as the runtime's
                     --log-json reports it.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

from torchfixtures import OPSET, STEPS, export, fixture_dir, train, write_doc

VOCAB, BATCH, SEQ, MICROBATCHES = 16, 8, 6, 4


class LSTMModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 16)
        self.lstm = nn.LSTM(16, 16, num_layers=2, batch_first=True)
        self.fc = nn.Linear(16, VOCAB)

    def forward(self, x, t):
        y, _ = self.lstm(self.emb(x))
        return F.cross_entropy(self.fc(y).reshape(-1, VOCAB), t.reshape(-1))


class GRUModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 12)
        self.gru = nn.GRU(12, 12)
        self.fc = nn.Linear(12, VOCAB)

    def forward(self, x, t):
        y, _ = self.gru(self.emb(x).transpose(0, 1))
        y = self.fc(y.transpose(0, 1))
        return F.cross_entropy(y.reshape(-1, VOCAB), t.reshape(-1))


def lstm_case():
    torch.manual_seed(7)
    model = LSTMModel()
    x = torch.randint(0, VOCAB, (BATCH, SEQ))
    t = torch.randint(0, VOCAB, (BATCH, SEQ))
    return model, {"x": x, "t": t}, {"sgd": 0.5, "adam": 0.01}


def gru_case():
    torch.manual_seed(8)
    model = GRUModel()
    x = torch.randint(0, VOCAB, (BATCH, SEQ))
    t = torch.randint(0, VOCAB, (BATCH, SEQ))
    return model, {"x": x, "t": t}, {"sgd": 0.5, "adam": 0.01}


def main():
    out = fixture_dir(__doc__)
    for name, make in (("lstm", lstm_case), ("gru", gru_case)):
        model, data, lrs = make()
        export(model, data, out, name)
        runs = {}
        for optimizer in ("sgd", "adam"):
            model, data, _ = make()
            losses = train(model, data, optimizer, lrs[optimizer],
                           microbatches=MICROBATCHES)
            runs[optimizer] = {"optimizer": optimizer, "lr": lrs[optimizer],
                               "steps": STEPS, "microbatches": MICROBATCHES,
                               "losses": losses}
            print("%s %s lr %g: loss %.6g -> %.6g" %
                  (name, optimizer, lrs[optimizer], losses[0], losses[-1]))
        write_doc(out, name, {"model": name + ".onnx", "opset": OPSET,
                              "torch": torch.__version__.split("+")[0],
                              "runs": runs})


if __name__ == "__main__":
    main()
