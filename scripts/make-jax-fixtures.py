#!/usr/bin/env python3
"""Writes the JAX fixtures of the StableHLO importer's tests.

Usage: make-jax-fixtures.py OUT_DIR

Needs JAX from PyPI (pinned below; only this script uses it, never the build
or the tests):

    python3 -m venv VENV && VENV/bin/pip install jax==0.10.2 jaxlib==0.10.2
    VENV/bin/python scripts/make-jax-fixtures.py test/Import/StableHLO/Inputs

For each model NAME (mlp: Linear/ReLU/Linear/tanh/Linear with an MSE loss;
gpt: a 2-block causal GPT with token and position embeddings, pre-LN,
softmax attention, GELU and a cross-entropy loss over int32 tokens) it writes

  NAME.stablehlo.mlir          jax.jit(loss).lower(params, x, y).as_text()
  NAME.debug.stablehlo.mlir    the same with debug_info=True (names as locs)
  NAME.generic.stablehlo.mlir  the generic form (every op in quotes)
  NAME-params.safetensors      the initial parameters, named as the importer
                               names them (params.w1, params.blocks.0.wq, ...)
  NAME.args                    the argument names, one per line (for
                               --arg-names with the files without debug info)
  NAME-x.npy, NAME-y.npy       the batch
  NAME.json                    JAX's own 20-step SGD and Adam loss
                               trajectories: {"jax": VERSION, "runs": {"sgd":
                               {"lr":..,"losses":[..]}, "adam": {..}}}

Names and the safetensors writer come from python/pipewave_jax.py, the
helper a JAX user calls. The parameters are the first arguments of the lowered function (JAX flattens
the params dict in sorted key order), then x and y. SGD and Adam are written
out as pipewave-run implements them (PyTorch's defaults: Adam betas 0.9,
0.999, eps 1e-8, bias-corrected); the loss of step k is the loss before
update k.
"""

import inspect
import json
import os
import struct
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
from pipewave_jax import param_name as key_name  # noqa: E402
from pipewave_jax import write_safetensors  # noqa: E402

JAX_VERSION = "0.10.2"
STEPS = 20


# ----------------------------------------------------------------------------
# Models
# ----------------------------------------------------------------------------

def mlp_params(rng):
    def lin(i, o):
        return (rng.standard_normal((i, o)) / np.sqrt(i)).astype(np.float32)
    return {
        "w1": lin(4, 16), "b1": np.zeros(16, np.float32) + 0.01,
        "w2": lin(16, 16), "b2": np.zeros(16, np.float32) - 0.01,
        "w3": lin(16, 2), "b3": np.zeros(2, np.float32),
    }


def mlp_loss(params, x, y):
    h = jax.nn.relu(x @ params["w1"] + params["b1"])
    h = jnp.tanh(h @ params["w2"] + params["b2"])
    pred = h @ params["w3"] + params["b3"]
    return jnp.mean((pred - y) ** 2)


def mlp_data(rng):
    x = rng.standard_normal((8, 4)).astype(np.float32)
    y = np.stack([np.sin(x[:, 0]), x[:, 1] * x[:, 2]], 1).astype(np.float32)
    return x, y


VOCAB, SEQ, DIM, HEADS, BLOCKS = 16, 8, 16, 2, 2


def gpt_params(rng):
    def w(*shape, scale=0.2):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    def block():
        return {
            "ln1_g": np.ones(DIM, np.float32), "ln1_b": np.zeros(DIM, np.float32),
            "wq": w(DIM, DIM), "wk": w(DIM, DIM), "wv": w(DIM, DIM),
            "wo": w(DIM, DIM),
            "ln2_g": np.ones(DIM, np.float32), "ln2_b": np.zeros(DIM, np.float32),
            "w_fc": w(DIM, 2 * DIM), "b_fc": np.zeros(2 * DIM, np.float32),
            "w_proj": w(2 * DIM, DIM), "b_proj": np.zeros(DIM, np.float32),
        }
    return {
        "wte": w(VOCAB, DIM, scale=0.5), "wpe": w(SEQ, DIM, scale=0.1),
        "blocks": [block() for _ in range(BLOCKS)],
        "lnf_g": np.ones(DIM, np.float32), "lnf_b": np.zeros(DIM, np.float32),
        "w_head": w(DIM, VOCAB),
    }


def layer_norm(x, g, b):
    mu = jnp.mean(x, -1, keepdims=True)
    var = jnp.mean(jnp.square(x - mu), -1, keepdims=True)
    return (x - mu) * jax.lax.rsqrt(var + 1e-5) * g + b


def gpt_loss(params, tokens, targets):
    bsz, t = tokens.shape
    x = params["wte"][tokens] + params["wpe"]
    causal = jnp.tril(jnp.ones((t, t), bool))
    hd = DIM // HEADS
    for p in params["blocks"]:
        h = layer_norm(x, p["ln1_g"], p["ln1_b"])

        def heads(m):
            return (h @ m).reshape(bsz, t, HEADS, hd).transpose(0, 2, 1, 3)
        q, k, v = heads(p["wq"]), heads(p["wk"]), heads(p["wv"])
        att = jnp.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(hd)
        att = jnp.where(causal, att, -1e9)
        att = jax.nn.softmax(att, axis=-1)
        o = jnp.einsum("bhqk,bhkd->bhqd", att, v)
        o = o.transpose(0, 2, 1, 3).reshape(bsz, t, DIM)
        x = x + o @ p["wo"]
        h = layer_norm(x, p["ln2_g"], p["ln2_b"])
        h = jax.nn.gelu(h @ p["w_fc"] + p["b_fc"], approximate=True)
        x = x + h @ p["w_proj"] + p["b_proj"]
    x = layer_norm(x, params["lnf_g"], params["lnf_b"])
    logits = x @ params["w_head"]
    logp = jax.nn.log_softmax(logits, axis=-1)
    picked = jnp.take_along_axis(logp, targets[..., None], axis=-1)
    return -jnp.mean(picked)


def gpt_data(rng):
    tokens = rng.integers(0, VOCAB, (4, SEQ + 1)).astype(np.int32)
    return tokens[:, :-1].copy(), tokens[:, 1:].copy()


MODELS = {
    "mlp": (mlp_params, mlp_loss, mlp_data, {"sgd": 0.1, "adam": 0.01}),
    "gpt": (gpt_params, gpt_loss, gpt_data, {"sgd": 0.2, "adam": 0.005}),
}


# ----------------------------------------------------------------------------
# Writers
# ----------------------------------------------------------------------------

def train(loss, params, x, y, kind, lr):
    """pipewave-run's SGD / Adam, step by step in float32."""
    leaves, tree = jax.tree_util.tree_flatten(params)
    leaves = [jnp.asarray(v, jnp.float32) for v in leaves]
    vg = jax.jit(jax.value_and_grad(
        lambda ls: loss(jax.tree_util.tree_unflatten(tree, ls), x, y)))
    m = [jnp.zeros_like(v) for v in leaves]
    s = [jnp.zeros_like(v) for v in leaves]
    losses = []
    for step in range(1, STEPS + 1):
        value, grads = vg(leaves)
        losses.append(float(value))
        if kind == "sgd":
            leaves = [p - np.float32(lr) * g for p, g in zip(leaves, grads)]
            continue
        bc1 = 1.0 - 0.9 ** step
        bc2 = 1.0 - 0.999 ** step
        new = []
        for i, (p, g) in enumerate(zip(leaves, grads)):
            m[i] = m[i] + np.float32(0.1) * (g - m[i])
            s[i] = s[i] * np.float32(0.999) + (np.float32(0.001) * g) * g
            denom = jnp.sqrt(s[i]) / np.float32(np.sqrt(bc2)) + np.float32(1e-8)
            new.append(p + (np.float32(-(lr / bc1)) * m[i]) / denom)
        leaves = new
    return losses


def main(argv):
    if len(argv) != 1:
        raise SystemExit(__doc__)
    out = argv[0]
    os.makedirs(out, exist_ok=True)
    if jax.__version__ != JAX_VERSION:
        print("warning: JAX %s, fixtures were made with %s" %
              (jax.__version__, JAX_VERSION), file=sys.stderr)
    for name, (make_params, loss, make_data, lrs) in MODELS.items():
        rng = np.random.default_rng(1234)
        params = make_params(rng)
        x, y = make_data(rng)
        lowered = jax.jit(loss).lower(params, x, y)
        with open(os.path.join(out, name + ".stablehlo.mlir"), "w") as f:
            f.write(lowered.as_text())
        with open(os.path.join(out, name + ".debug.stablehlo.mlir"), "w") as f:
            # Locations name this script by its path in the repository.
            f.write(lowered.as_text(debug_info=True).replace(
                '"%s"' % os.path.abspath(__file__),
                '"scripts/make-jax-fixtures.py"'))
        module = lowered.compiler_ir("stablehlo")
        with open(os.path.join(out, name + ".generic.stablehlo.mlir"), "w") as f:
            f.write(module.operation.get_asm(print_generic_op_form=True,
                                             assume_verified=True))
        flat = jax.tree_util.tree_flatten_with_path(params)[0]
        write_safetensors(os.path.join(out, name + "-params.safetensors"),
                          [(key_name(p), v) for p, v in flat])
        data_names = list(inspect.signature(loss).parameters)[1:]
        with open(os.path.join(out, name + ".args"), "w") as f:
            f.write("".join(n + "\n" for n in
                            [key_name(p) for p, _ in flat] + data_names))
        np.save(os.path.join(out, name + "-x.npy"), x)
        np.save(os.path.join(out, name + "-y.npy"), y)
        runs = {k: {"lr": lr, "steps": STEPS,
                    "losses": train(loss, params, x, y, k, lr)}
                for k, lr in lrs.items()}
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump({"jax": jax.__version__, "runs": runs}, f, indent=1)
            f.write("\n")
        print("%s: %d parameters, loss %.6g" %
              (name, len(flat), runs["sgd"]["losses"][0]))


if __name__ == "__main__":
    main(sys.argv[1:])
