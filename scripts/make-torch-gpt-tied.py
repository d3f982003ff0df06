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

import torch
import torch.nn as nn
import torch.nn.functional as F

from torchfixtures import (OPSET, STEPS, Block, export, fixture_dir, train,
                           write_doc)

VOCAB, DIM, SEQ, HEADS, BLOCKS, BATCH = 32, 16, 8, 2, 4, 8


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, DIM)
        self.pos = nn.Embedding(SEQ, DIM)
        self.blocks = nn.ModuleList(
            Block(DIM, SEQ, HEADS) for _ in range(BLOCKS))
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


def main():
    out = fixture_dir(__doc__)
    model, data = make()
    export(model, data, out, "gpt-tied")
    lrs = {"sgd": 0.3, "adam": 0.01, "adam-frozen-tok": 0.01}
    runs = {}
    for run, lr in lrs.items():
        optimizer = "sgd" if run == "sgd" else "adam"
        frozen = ("tok.weight",) if run == "adam-frozen-tok" else ()
        losses = train(*make(), optimizer, lr, frozen)
        runs[run] = {"optimizer": optimizer, "lr": lr, "steps": STEPS,
                     "frozen": list(frozen), "losses": losses}
        print("gpt-tied %s lr %g: loss %.6g -> %.6g" %
              (run, lr, losses[0], losses[-1]))
    write_doc(out, "gpt-tied", {
        "model": "gpt-tied.onnx", "opset": OPSET,
        "torch": torch.__version__.split("+")[0],
        "parameters": sum(p.numel() for p in model.parameters()),
        "runs": runs})


if __name__ == "__main__":
    main()
