"""torchfixtures: what the PyTorch fixture generators share (imported by
make-torch-onnx.py, make-torch-gpt-tied.py and make-torch-cnn.py; PyTorch is
used only to generate fixtures, never by the test suite).

- CausalSelfAttention and Block: a pre-LayerNorm GPT block written the way
  most PyTorch GPT code is (fused qkv nn.Linear, a float tril mask kept with
  register_buffer and applied with masked_fill, a GELU MLP);
- fixture_dir(doc): the --out command line and the deterministic settings;
- train(): PyTorch's own training of a freshly made module, the loss before
  each step's update as the runtime's --log-json reports it;
- export(): the module as ONNX (dynamo=False, EVAL, constant folding, the
  loss the only output) and its data batch as NAME-INPUT.npy;
- write_doc() and write_cases(): the NAME.json trajectories.
"""

import argparse
import json
import math
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STEPS = 20
OPSET = 17


class CausalSelfAttention(nn.Module):
    def __init__(self, dim, seq, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.register_buffer(
            "mask", torch.tril(torch.ones(seq, seq)).view(1, 1, seq, seq))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        hd = C // self.heads
        q = q.view(B, T, self.heads, hd).transpose(1, 2)
        k = k.view(B, T, self.heads, hd).transpose(1, 2)
        v = v.view(B, T, self.heads, hd).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self, dim, seq, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, seq, heads)
        self.ln2 = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, 4 * dim)
        self.gelu = nn.GELU()
        self.fc_out = nn.Linear(4 * dim, dim)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.fc_out(self.gelu(self.fc(self.ln2(x))))


def fixture_dir(doc):
    """Parses --out DIR (default test/Import/Onnx/Inputs/torch), makes it and
    makes PyTorch deterministic on one thread."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "test", "Import",
                                                  "Onnx", "Inputs", "torch"))
    opts = ap.parse_args()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    os.makedirs(opts.out, exist_ok=True)
    return opts.out


def train(model, data, optimizer, lr, frozen=(), microbatches=1):
    """STEPS steps of torch.optim.SGD or Adam (defaults except lr,
    foreach=False) on `data`, the parameters named in `frozen` frozen. With
    several microbatches every step accumulates the gradients of the
    microbatches (dimension 0 of every input split in order, the loss of
    each divided by their count), as pipewave does; the step's loss is the
    sum."""
    for name, p in model.named_parameters():
        if name in frozen:
            p.requires_grad_(False)
    params = list(model.parameters())
    opt = (torch.optim.SGD(params, lr=lr, foreach=False) if optimizer == "sgd"
           else torch.optim.Adam(params, lr=lr, foreach=False))
    losses = []
    for _ in range(STEPS):
        opt.zero_grad()
        if microbatches == 1:
            loss = model(*data.values())
            losses.append(float(loss.item()))
            loss.backward()
        else:
            parts = zip(*(t.chunk(microbatches) for t in data.values()))
            total = 0.0
            for part in parts:
                loss = model(*part) / microbatches
                total += float(loss.item())
                loss.backward()
            losses.append(total)
        opt.step()
    return losses


def export(model, data, out, name, training=False):
    """Writes NAME.onnx (the module in eval mode, or in training mode without
    constant folding) and NAME-INPUT.npy."""
    model.train(training)
    torch.onnx.export(
        model, tuple(data.values()), os.path.join(out, name + ".onnx"),
        dynamo=False, opset_version=OPSET,
        training=(torch.onnx.TrainingMode.TRAINING if training
                  else torch.onnx.TrainingMode.EVAL),
        do_constant_folding=not training,
        input_names=list(data), output_names=["loss"])
    for key, t in data.items():
        np.save(os.path.join(out, "%s-%s.npy" % (name, key)), t.numpy())


def write_doc(out, name, doc):
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def write_cases(out, cases):
    """For each (NAME, make) of `cases`, make() returning (module, data,
    {"sgd": lr, "adam": lr}): NAME.onnx, its data and NAME.json with the
    SGD and Adam trajectories, each from a freshly made module."""
    for name, make in cases:
        model, data, lrs = make()
        export(model, data, out, name)
        runs = {}
        for optimizer in ("sgd", "adam"):
            model, data, _ = make()
            losses = train(model, data, optimizer, lrs[optimizer])
            runs[optimizer] = {"optimizer": optimizer, "lr": lrs[optimizer],
                               "steps": STEPS, "losses": losses}
            print("%s %s lr %g: loss %.6g -> %.6g" %
                  (name, optimizer, lrs[optimizer], losses[0], losses[-1]))
        write_doc(out, name, {"model": name + ".onnx", "opset": OPSET,
                              "torch": torch.__version__.split("+")[0],
                              "runs": runs})
