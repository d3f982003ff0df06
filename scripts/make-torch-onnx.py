#!/usr/bin/env python3
"""make-torch-onnx.py [--out DIR]: real PyTorch ONNX exports for the importer
and training tests.

PyTorch is used only here, to generate fixtures; the test suite
(test/Import/Onnx/torch-train-*.test) needs neither PyTorch nor this
script. The committed files in test/Import/Onnx/Inputs/torch/ were produced
by PyTorch 2.15.0 (CPU, float32) and onnx 1.23.2 with:

    pip install torch numpy onnx
    python3 scripts/make-torch-onnx.py

Two small models, written as ordinary PyTorch modules whose forward returns
the scalar training loss, with fixed weights (torch.manual_seed) and one fixed
data batch (the version numbers above matter: another PyTorch may draw other
values or export other initializer names):

  mlp  16 -> 32 -> 32 -> 4, nn.Linear + ReLU, F.mse_loss; inputs x [16, 16]
       float32 and y [16, 4] float32.
  gpt  a GPT-style language model: token and position embeddings
       (nn.Embedding, vocab 32, d 16, sequence 8; the position embedding of
       torch.arange(T) constant-folds into one [8, 16] initializer), 2
       pre-LayerNorm blocks of causal self-attention (2 heads, a fused qkv nn.Linear, the mask a
       registered tril buffer applied with masked_fill(-inf), F.softmax) and
       an MLP (16 -> 64 -> 16, nn.GELU, exact erf form), a final LayerNorm,
       an untied lm_head and F.cross_entropy; inputs idx [8, 8] and
       targets [8, 8], int64 token ids as PyTorch uses them.

For each model it writes, to DIR (default test/Import/Onnx/Inputs/torch):

  NAME.onnx          torch.onnx.export(..., dynamo=False, opset_version=17,
                     training=EVAL, do_constant_folding=True), the loss the
                     only output, the initializers the initial weights;
  NAME-INPUT.npy     the data batch, one file per graph input;
  NAME.json          the losses PyTorch's own training of the same module
                     records over 20 steps of torch.optim.SGD and 20 of
                     torch.optim.Adam (defaults except lr, foreach=False),
                     always on that batch: the loss before each step's update,
                     as the runtime's --log-json reports it.

and ce-ignore-index.onnx, an F.cross_entropy with ignore_index=3 (inside the
class range), which the importer rejects.
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


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 32)
        self.fc3 = nn.Linear(32, 4)

    def forward(self, x, y):
        h = F.relu(self.fc1(x))
        h = F.relu(self.fc2(h))
        return F.mse_loss(self.fc3(h), y)


VOCAB, DIM, SEQ, HEADS, BLOCKS, BATCH = 32, 16, 8, 2, 2, 8


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(DIM, 3 * DIM)
        self.proj = nn.Linear(DIM, DIM)
        self.register_buffer(
            "mask", torch.tril(torch.ones(SEQ, SEQ)).view(1, 1, SEQ, SEQ))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        hd = C // HEADS
        q = q.view(B, T, HEADS, hd).transpose(1, 2)
        k = k.view(B, T, HEADS, hd).transpose(1, 2)
        v = v.view(B, T, HEADS, hd).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(DIM)
        self.attn = CausalSelfAttention()
        self.ln2 = nn.LayerNorm(DIM)
        self.fc = nn.Linear(DIM, 4 * DIM)
        self.gelu = nn.GELU()
        self.fc_out = nn.Linear(4 * DIM, DIM)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.fc_out(self.gelu(self.fc(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, DIM)
        self.wpe = nn.Embedding(SEQ, DIM)
        self.blocks = nn.ModuleList(Block() for _ in range(BLOCKS))
        self.ln_f = nn.LayerNorm(DIM)
        self.lm_head = nn.Linear(DIM, VOCAB, bias=False)
        # Embeddings keep PyTorch's N(0, 1); linear weights N(0, 0.2^2);
        # LayerNorm weights and biases perturbed from 1 and 0. (Smaller
        # embeddings make plain SGD oscillate, and an oscillating trajectory
        # amplifies float rounding beyond the tests' tolerance.) Distinct
        # values matter: the exporter merges initializers with equal values
        # into one (tying them), which PyTorch's training of separate
        # parameters would not do.
        for name, p in self.named_parameters():
            if p.dim() == 2 and "wte" not in name and "wpe" not in name:
                nn.init.normal_(p, std=0.2)
            elif "ln" in name:
                with torch.no_grad():
                    p.add_(torch.randn_like(p), alpha=0.1)

    def forward(self, idx, targets):
        B, T = idx.shape
        pos = torch.arange(T)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.blocks:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, VOCAB), targets.view(-1))


class IgnoredClass(nn.Module):
    """F.cross_entropy with an ignore_index inside the class range, which
    the importer rejects (see docs/onnx.md)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 5)

    def forward(self, x, t):
        return F.cross_entropy(self.fc(x), t, ignore_index=3)


def mlp_case():
    torch.manual_seed(1)
    model = MLP()
    x = torch.randn(16, 16)
    y = torch.randn(16, 4)
    return model, {"x": x, "y": y}, {"sgd": 0.1, "adam": 0.005}


def gpt_case():
    torch.manual_seed(2)
    model = GPT()
    # A learnable toy language: each sequence counts up by a per-row stride.
    start = torch.randint(0, VOCAB, (BATCH, 1))
    stride = torch.randint(1, 4, (BATCH, 1))
    seq = (start + stride * torch.arange(SEQ + 1)) % VOCAB
    return model, {"idx": seq[:, :SEQ].contiguous(),
                   "targets": seq[:, 1:].contiguous()}, \
        {"sgd": 0.3, "adam": 0.01}


def train(make, optimizer, lr):
    model, data, _ = make()
    params = list(model.parameters())
    opt = (torch.optim.SGD(params, lr=lr, foreach=False) if optimizer == "sgd"
           else torch.optim.Adam(params, lr=lr, foreach=False))
    losses = []
    for _ in range(STEPS):
        opt.zero_grad()
        loss = model(*data.values())
        losses.append(float(loss.item()))
        loss.backward()
        opt.step()
    return losses


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "test", "Import",
                                                  "Onnx", "Inputs", "torch"))
    opts = ap.parse_args()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    os.makedirs(opts.out, exist_ok=True)
    for name, make in (("mlp", mlp_case), ("gpt", gpt_case)):
        model, data, lrs = make()
        model.eval()
        torch.onnx.export(
            model, tuple(data.values()), os.path.join(opts.out, name + ".onnx"),
            dynamo=False, opset_version=OPSET,
            training=torch.onnx.TrainingMode.EVAL, do_constant_folding=True,
            input_names=list(data), output_names=["loss"])
        for key, t in data.items():
            np.save(os.path.join(opts.out, "%s-%s.npy" % (name, key)),
                    t.numpy())
        runs = {}
        for optimizer in ("sgd", "adam"):
            losses = train(make, optimizer, lrs[optimizer])
            runs[optimizer] = {"optimizer": optimizer, "lr": lrs[optimizer],
                               "steps": STEPS, "losses": losses}
            print("%s %s lr %g: loss %.6g -> %.6g" %
                  (name, optimizer, lrs[optimizer], losses[0], losses[-1]))
        doc = {"model": name + ".onnx", "opset": OPSET,
               "torch": torch.__version__.split("+")[0], "runs": runs}
        with open(os.path.join(opts.out, name + ".json"), "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    torch.manual_seed(3)
    torch.onnx.export(
        IgnoredClass(), (torch.randn(6, 4), torch.randint(0, 5, (6,))),
        os.path.join(opts.out, "ce-ignore-index.onnx"), dynamo=False,
        opset_version=OPSET, training=torch.onnx.TrainingMode.EVAL,
        do_constant_folding=True, input_names=["x", "t"],
        output_names=["loss"])


if __name__ == "__main__":
    main()
