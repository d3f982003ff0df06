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

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from torchfixtures import OPSET, Block, fixture_dir, write_cases


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


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, DIM)
        self.wpe = nn.Embedding(SEQ, DIM)
        self.blocks = nn.ModuleList(
            Block(DIM, SEQ, HEADS) for _ in range(BLOCKS))
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


def main():
    out = fixture_dir(__doc__)
    write_cases(out, (("mlp", mlp_case), ("gpt", gpt_case)))
    torch.manual_seed(3)
    torch.onnx.export(
        IgnoredClass(), (torch.randn(6, 4), torch.randint(0, 5, (6,))),
        os.path.join(out, "ce-ignore-index.onnx"), dynamo=False,
        opset_version=OPSET, training=torch.onnx.TrainingMode.EVAL,
        do_constant_folding=True, input_names=["x", "t"],
        output_names=["loss"])


if __name__ == "__main__":
    main()
