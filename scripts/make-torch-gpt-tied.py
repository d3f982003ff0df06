#!/usr/bin/env python3
"""make-torch-gpt-tied.py [--out DIR]: a PyTorch GPT written the way most
GPT code is, exported for the training tests of issue-style PyTorch models.

PyTorch is used only here, to generate fixtures; the test suite
(test/Import/Onnx/torch-train-gpt-tied.test) needs neither PyTorch nor
this script. The committed files in test/Import/Onnx/Inputs/torch/ were
produced by PyTorch 2.15.0 (CPU, float32) and onnx 1.23.2 with:

    pip install torch numpy onnx
    python3 scripts/make-torch-gpt-tied.py

The model: token and position nn.Embedding (vocab 32, width 16, sequence 8),
4 pre-LayerNorm blocks of causal self-attention (2 heads, a fused qkv
nn.Linear; the mask a float tril kept with register_buffer and applied with
masked_fill(mask == 0, -inf)) and a GELU MLP, a final LayerNorm, every
LayerNorm at PyTorch's default initialisation (weight 1, bias 0, so the
exporter de-duplicates them into Identity aliases), and an output head tied
to the token embedding (F.linear on the embedding's weight, with a bias of
its own: one initializer read by Gather and Gemm), with F.cross_entropy. Inputs idx [8, 8] and targets
[8, 8], int64 token ids.

It writes, to DIR (default test/Import/Onnx/Inputs/torch):

  gpt-tied.onnx        torch.onnx.export(..., dynamo=False, opset_version=17,
                       training=EVAL, do_constant_folding=True), the loss
                       the only output;
  gpt-tied-INPUT.npy   the data batch;
  gpt-tied.json        the parameter count sum(p.numel() for p in
                       model.parameters()) and the losses PyTorch's own
                       training records over 20 steps of torch.optim.SGD, 20
                       of torch.optim.Adam, and 20 of Adam with the token
                       embedding frozen (requires_grad_(False); run
                       "adam-frozen-tok"), defaults except lr, foreach=False:
                       the loss before each step's update, as the runtime's
                       --log-json reports it.
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
VOCAB, DIM, SEQ, HEADS, BLOCKS, BATCH = 32, 16, 8, 2, 4, 8


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
        self.tok = nn.Embedding(VOCAB, DIM)
        self.pos = nn.Embedding(SEQ, DIM)
        self.blocks = nn.ModuleList(Block() for _ in range(BLOCKS))
        self.lnf = nn.LayerNorm(DIM)
        # With a bias, F.linear on 2-D activations exports as one Gemm that
        # reads the embedding's weight itself (transB=1); without one, as a
        # MatMul with a transposed copy that constant folding unties.
        self.head_bias = nn.Parameter(torch.zeros(VOCAB))
        # Small embeddings keep the tied head's logits (and plain SGD) calm.
        with torch.no_grad():
            self.tok.weight.mul_(0.3)
            self.pos.weight.mul_(0.3)

    def forward(self, idx, targets):
        B, T = idx.shape
        x = self.tok(idx) + self.pos(torch.arange(T))
        for block in self.blocks:
            x = block(x)
        # The head is the token embedding, transposed (GPT-2's weight tying).
        logits = F.linear(self.lnf(x).view(-1, DIM), self.tok.weight,
                          self.head_bias)
        return F.cross_entropy(logits, targets.view(-1))


def make():
    torch.manual_seed(5)
    model = GPT()
    start = torch.randint(0, VOCAB, (BATCH, 1))
    stride = torch.randint(1, 4, (BATCH, 1))
    seq = (start + stride * torch.arange(SEQ + 1)) % VOCAB
    return model, {"idx": seq[:, :SEQ].contiguous(),
                   "targets": seq[:, 1:].contiguous()}


def train(optimizer, lr, frozen=()):
    model, data = make()
    for name, p in model.named_parameters():
        if name in frozen:
            p.requires_grad_(False)
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
    model, data = make()
    model.eval()
    torch.onnx.export(
        model, tuple(data.values()), os.path.join(opts.out, "gpt-tied.onnx"),
        dynamo=False, opset_version=OPSET,
        training=torch.onnx.TrainingMode.EVAL, do_constant_folding=True,
        input_names=list(data), output_names=["loss"])
    for key, t in data.items():
        np.save(os.path.join(opts.out, "gpt-tied-%s.npy" % key), t.numpy())
    lrs = {"sgd": 0.3, "adam": 0.01, "adam-frozen-tok": 0.01}
    runs = {}
    for run, lr in lrs.items():
        optimizer = "sgd" if run == "sgd" else "adam"
        frozen = ("tok.weight",) if run == "adam-frozen-tok" else ()
        losses = train(optimizer, lr, frozen)
        runs[run] = {"optimizer": optimizer, "lr": lr, "steps": STEPS,
                     "frozen": list(frozen), "losses": losses}
        print("gpt-tied %s lr %g: loss %.6g -> %.6g" %
              (run, lr, losses[0], losses[-1]))
    doc = {"model": "gpt-tied.onnx", "opset": OPSET,
           "torch": torch.__version__.split("+")[0],
           "parameters": sum(p.numel() for p in model.parameters()),
           "runs": runs}
    with open(os.path.join(opts.out, "gpt-tied.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
