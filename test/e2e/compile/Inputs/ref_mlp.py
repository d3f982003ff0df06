#!/usr/bin/env python3
"""Reference loss of examples/mlp.mlir with the stub runtime's inputs.

Input i (in @main's argument order: x, y, w0, b0, ..., w7, b7), element j
(row-major) is float32(0.1 * sin(0.7 * j + 1.3 * i + 0.1)). Pure Python (no
numpy): the forward in double precision, then the loss
sum((h - y)^2) / (16 * 8). Usage: ref_mlp.py STUB_OUTPUT [rtol]
checks the "output 0 ... sum S" line of the stub's output against it.
"""
import math
import re
import struct
import sys


def f32(v):
    return struct.unpack("f", struct.pack("f", v))[0]


def tensor(index, numel):
    return [f32(0.1 * math.sin(0.7 * j + 1.3 * index + 0.1))
            for j in range(numel)]


def main():
    batch, widths = 16, [64, 128, 128, 128, 128, 128, 128, 128, 8]
    x = tensor(0, batch * widths[0])
    y = tensor(1, batch * widths[-1])
    h = [x[r * widths[0]:(r + 1) * widths[0]] for r in range(batch)]
    for layer in range(8):
        fan_in, fan_out = widths[layer], widths[layer + 1]
        w = tensor(2 + 2 * layer, fan_in * fan_out)
        b = tensor(3 + 2 * layer, fan_out)
        out = []
        for row in h:
            o = [b[c] for c in range(fan_out)]
            for k, a in enumerate(row):
                if a != 0.0:
                    base = k * fan_out
                    for c in range(fan_out):
                        o[c] += a * w[base + c]
            if layer < 7:
                o = [max(v, 0.0) for v in o]
            out.append(o)
        h = out
    loss = 0.0
    for r in range(batch):
        for c in range(widths[-1]):
            d = h[r][c] - y[r * widths[-1] + c]
            loss += d * d
    loss /= batch * widths[-1]

    if len(sys.argv) < 2:
        print("%.9g" % loss)
        return 0
    rtol = float(sys.argv[2]) if len(sys.argv) > 2 else 1e-4
    text = open(sys.argv[1]).read()
    match = re.search(r"^output 0 \(sum\) numel 1 sum (\S+)", text, re.M)
    if not match:
        print("no 'output 0 (sum)' line in the stub output:\n" + text)
        return 1
    got = float(match.group(1))
    if abs(got - loss) > rtol * abs(loss):
        print("loss %.9g, reference %.9g (rtol %g)" % (got, loss, rtol))
        return 1
    print("loss %.9g matches the reference %.9g" % (got, loss))
    return 0


if __name__ == "__main__":
    sys.exit(main())
