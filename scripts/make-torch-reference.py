#!/usr/bin/env python3
"""make-torch-reference.py [--out DIR]: PyTorch reference loss trajectories
for examples/mlp.mlir and examples/transformer.mlir.

PyTorch is used only here, to generate fixtures; the test suite
(test/e2e/train-torch-reference.test) needs neither PyTorch nor this script.
The committed fixtures test/e2e/Inputs/torch/{mlp,transformer}.json were
produced by PyTorch 2.15.0 (CPU, float32) with:

    pip install torch numpy
    python3 scripts/make-torch-reference.py

For each example the script

  1. builds the example's fixed initial parameters and data with
     test/e2e/Inputs/torch/make_inputs.py (pure Python, deterministic: the
     test regenerates the same init.safetensors and .npy files for the
     runtime's --init and --data instead of committing them);
  2. builds the example's model in PyTorch op by op as the TOSA is written:
     the same parameter shapes ([1, IN, OUT] weights, 3-D matmuls between
     reshapes), ReLU as clamp(0, FLT_MAX), LayerNorm as
     sum * (1/D), centring, sum of squares * (1/D), rsqrt(var + 1e-5), the
     additive causal mask of -1e9, softmax as max-subtract / exp / sum /
     reciprocal / multiply, the erf GELU with the example's float32 constant
     1/sqrt(2), and the loss sum((out - y)^2) * (1 / element count);
  3. trains it for 20 steps with torch.optim.SGD and 20 steps with
     torch.optim.Adam (PyTorch's defaults except lr; foreach=False, the
     single-tensor implementation the runtime follows), always on the one
     global batch of the data, and records the loss before each step's
     update, as the runtime's --log-json does.

Output: DIR/mlp.json and DIR/transformer.json (default DIR:
test/e2e/Inputs/torch), each
  {"model": ..., "torch": VERSION, "runs": {"sgd": {"optimizer": "sgd",
   "lr": LR, "steps": 20, "losses": [...]}, "adam": {...}}}
"""

import argparse
import json
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test", "e2e", "Inputs", "torch"))
import make_inputs  # noqa: E402

STEPS = 20
# Learning rates per model and optimizer (the test passes the same --lr).
LR = {
    "mlp": {"sgd": 0.05, "adam": 0.001},
    "transformer": {"sgd": 0.05, "adam": 0.001},
}

F32 = torch.float32


def const(v):
    return torch.tensor(v, dtype=F32)


def mlp_loss(p, d):
    """examples/mlp.mlir: layers w0/b0 .. wN/bN, ReLU between, MSE loss."""
    layers = sum(1 for name in p if name.startswith("w"))
    h = d["x"]
    batch = h.shape[0]
    for k in range(layers):
        w, b = p["w%d" % k], p["b%d" % k]
        mm = torch.matmul(h.reshape(1, batch, w.shape[1]), w)
        h = mm.reshape(batch, w.shape[2]) + b
        if k + 1 < layers:
            h = torch.clamp(h, min=0.0, max=torch.finfo(F32).max)
    diff = h - d["y"]
    sq = diff * diff
    total = sq.sum(0, keepdim=True).sum(1, keepdim=True).reshape(())
    return total * const(1.0 / sq.numel())


def layer_norm(x, gamma, beta, inv_d, eps):
    mean = x.sum(2, keepdim=True) * inv_d
    xc = x - mean
    var = (xc * xc).sum(2, keepdim=True) * inv_d
    rstd = torch.rsqrt(var + eps)
    return xc * rstd * gamma + beta


def transformer_loss(p, d):
    """examples/transformer.mlir: 2 pre-LN blocks (2 heads of 16), final LN,
    MSE loss."""
    x = d["x"]
    B, T, D = x.shape
    H, Dh = 2, 16
    inv_d = const([[[1.0 / D]]])
    eps = const([[[1e-5]]])
    att_scale = const([[[0.25]]])
    mask = torch.triu(torch.full((T, T), -1.0e9, dtype=F32), 1).reshape(1, T, T)
    inv_sqrt2 = const([[[0.707106769]]])
    one, half = const([[[1.0]]]), const([[[0.5]]])
    h = x
    for l in range(2):
        q = lambda n: p["l%d_%s" % (l, n)]  # noqa: E731
        ln1 = layer_norm(h, q("ln1_gamma"), q("ln1_beta"), inv_d, eps)
        tok = ln1.reshape(1, B * T, D)
        qs = torch.matmul(tok, q("wq")).reshape(B, T, H, Dh)
        ks = torch.matmul(tok, q("wk")).reshape(B, T, H, Dh)
        vs = torch.matmul(tok, q("wv")).reshape(B, T, H, Dh)
        qh = qs.permute(0, 2, 1, 3).reshape(B * H, T, Dh)
        kh = ks.permute(0, 2, 3, 1).reshape(B * H, Dh, T)
        vh = vs.permute(0, 2, 1, 3).reshape(B * H, T, Dh)
        scores = torch.matmul(qh, kh)
        masked = scores * att_scale + mask
        shifted = masked - masked.amax(2, keepdim=True)
        e = torch.exp(shifted)
        probs = e * torch.reciprocal(e.sum(2, keepdim=True))
        ctx = torch.matmul(probs, vh).reshape(B, H, T, Dh)
        ctx = ctx.permute(0, 2, 1, 3).reshape(1, B * T, D)
        attn = (torch.matmul(ctx, q("wo")) + q("bo")).reshape(B, T, D)
        res1 = h + attn
        ln2 = layer_norm(res1, q("ln2_gamma"), q("ln2_beta"), inv_d, eps)
        fc1 = torch.matmul(ln2.reshape(1, B * T, D), q("w1")) + q("b1")
        gelu = fc1 * (torch.erf(fc1 * inv_sqrt2) + one) * half
        fc2 = torch.matmul(gelu, q("w2")) + q("b2")
        h = res1 + fc2.reshape(B, T, D)
    out = layer_norm(h, p["lnf_gamma"], p["lnf_beta"], inv_d, eps)
    diff = out - d["y"]
    sq = diff * diff
    total = sq.sum(0, keepdim=True).sum(1, keepdim=True).sum(
        2, keepdim=True).reshape(())
    return total * const(1.0 / sq.numel())


MODELS = {"mlp": mlp_loss, "transformer": transformer_loss}


def train(name, optimizer, lr):
    model_path = os.path.join(ROOT, "examples", name + ".mlir")
    args = make_inputs.read_arguments(model_path)
    values = make_inputs.make_values(args)
    params, data = {}, {}
    for arg, shape, is_param in args:
        t = torch.tensor(values[arg][1], dtype=F32).reshape(shape)
        if is_param:
            params[arg] = torch.nn.Parameter(t)
        else:
            data[arg] = t
    plist = list(params.values())
    if optimizer == "sgd":
        opt = torch.optim.SGD(plist, lr=lr, foreach=False)
    else:
        opt = torch.optim.Adam(plist, lr=lr, foreach=False)
    losses = []
    for _ in range(STEPS):
        opt.zero_grad()
        loss = MODELS[name](params, data)
        losses.append(float(loss.item()))
        loss.backward()
        opt.step()
    return losses


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "test", "e2e",
                                                  "Inputs", "torch"))
    opts = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    os.makedirs(opts.out, exist_ok=True)
    for name in MODELS:
        runs = {}
        for optimizer in ("sgd", "adam"):
            lr = LR[name][optimizer]
            losses = train(name, optimizer, lr)
            runs[optimizer] = {"optimizer": optimizer, "lr": lr,
                               "steps": STEPS, "losses": losses}
            print("%s %s lr %g: loss %.6g -> %.6g" %
                  (name, optimizer, lr, losses[0], losses[-1]))
        doc = {"model": "examples/%s.mlir" % name,
               "torch": torch.__version__.split("+")[0], "runs": runs}
        with open(os.path.join(opts.out, name + ".json"), "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
