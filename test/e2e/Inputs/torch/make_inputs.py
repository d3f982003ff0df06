#!/usr/bin/env python3
"""make_inputs.py MODEL.mlir OUTDIR: the fixed initial parameters and data of
the PyTorch reference trajectories (scripts/make-torch-reference.py), pure
Python so that the test suite regenerates them bit for bit instead of
committing them.

Reads the `@main` arguments of a TOSA model (examples/mlp.mlir,
examples/transformer.mlir): every `pipe.param` argument becomes a float32
tensor named by its `pipe.name` in OUTDIR/init.safetensors (the runtime's
--init), every other argument OUTDIR/NAME.npy (its --data).

Values come from SplitMix64 seeded with the FNV-1a hash of the name (24
bits per value), computed in double and rounded to float32 once, so they are
the same on every platform; with u uniform in [-1, 1):

  parameters named *gamma*: 1 + 0.1 * u;  *beta*: 0.1 * u
  other parameters: u / sqrt(IN), PyTorch's nn.Linear bound, IN being the
      second to last dimension of a weight [.., IN, OUT] (a bias [.., 1, OUT]
      or [1, OUT] takes the IN of the weight before it)
  data inputs: u
"""

import json
import math
import os
import re
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "..", "scripts"))
from npyio import write_npy  # noqa: E402

MASK = (1 << 64) - 1

ARG_RE = re.compile(r"%(\w+)\s*:\s*tensor<([0-9x]+)xf32>\s*\{([^}]*)\}")
NAME_RE = re.compile(r'pipe\.name\s*=\s*"([^"]+)"')


def fnv1a(text):
    h = 0xcbf29ce484222325
    for byte in text.encode():
        h = ((h ^ byte) * 0x100000001b3) & MASK
    return h


def uniform(name, count):
    """count values uniform in [-1, 1), exactly representable in float32."""
    state = fnv1a(name)
    out = []
    for _ in range(count):
        state = (state + 0x9e3779b97f4a7c15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & MASK
        z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & MASK
        z ^= z >> 31
        out.append((z >> 40) / float(1 << 23) - 1.0)
    return out


def f32(values):
    return list(struct.unpack("<%df" % len(values),
                              struct.pack("<%df" % len(values), *values)))


def read_arguments(model_path):
    """[(name, shape, is_param)] of @main, in order."""
    with open(model_path) as f:
        text = f.read()
    start = text.index("func.func @main(")
    end = text.index(") ->", start)
    args = []
    for m in ARG_RE.finditer(text[start:end]):
        attrs = m.group(3)
        name = NAME_RE.search(attrs)
        if not name:
            raise SystemExit("%s: argument %%%s has no pipe.name" %
                             (model_path, m.group(1)))
        shape = [int(d) for d in m.group(2).split("x")]
        args.append((name.group(1), shape, "pipe.param" in attrs))
    if not args:
        raise SystemExit("%s: no f32 arguments of @main found" % model_path)
    return args


def make_values(args):
    """{name: (shape, [float32 values])} for every argument."""
    values = {}
    fan_in = None
    for name, shape, is_param in args:
        count = math.prod(shape)
        u = uniform(name, count)
        if not is_param:
            v = u
        elif "gamma" in name:
            v = [1.0 + 0.1 * t for t in u]
        elif "beta" in name:
            v = [0.1 * t for t in u]
        else:
            if len(shape) >= 2 and shape[-2] > 1:
                fan_in = shape[-2]
            bound = 1.0 / math.sqrt(fan_in or shape[-1])
            v = [bound * t for t in u]
        values[name] = (shape, f32(v))
    return values


def write_safetensors(path, tensors):
    """tensors: [(name, shape, float32 values)] in order."""
    header, blobs, offset = {}, [], 0
    for name, shape, data in tensors:
        blob = struct.pack("<%df" % len(data), *data)
        header[name] = {"dtype": "F32", "shape": shape,
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header, separators=(",", ":"))
    text += " " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text.encode())
        for blob in blobs:
            f.write(blob)


def write_inputs(model_path, outdir):
    args = read_arguments(model_path)
    values = make_values(args)
    os.makedirs(outdir, exist_ok=True)
    params = []
    for name, shape, is_param in args:
        if is_param:
            params.append((name, shape, values[name][1]))
        else:
            write_npy(os.path.join(outdir, name + ".npy"), shape,
                      values[name][1])
    write_safetensors(os.path.join(outdir, "init.safetensors"), params)
    return args, values


def main(argv):
    if len(argv) != 2:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    args, _ = write_inputs(argv[0], argv[1])
    n = sum(1 for a in args if a[2])
    print("%s: %d parameters, %d data inputs" %
          (os.path.basename(argv[0]), n, len(args) - n))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
