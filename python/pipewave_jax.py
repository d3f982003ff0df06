"""pipewave_jax: hand a JAX loss to pipewave.

    import pipewave_jax
    pipewave_jax.export(loss, params, x, y, path="model")

lowers `jax.jit(loss)` for `loss(params, *data)` with debug info (so every
argument carries its name as a location), and writes

    model.stablehlo.mlir          the module, for `pipewave-import`
    model-params.safetensors      the parameters, named as pipewave-import
                                  names them (params.w1, params.blocks.0.wq)

then `pipewave-import model.stablehlo.mlir -o model.mlir --params
model-params.safetensors`. Needs JAX and NumPy; pipewave itself does not.
Parameters are written as float32.
"""

import json
import struct

import numpy as np


def param_name(path, root="params"):
    """A JAX key path as pipewave-import names it: [K('w')] -> params.w."""
    parts = [root]
    for k in path:
        parts.append(str(getattr(k, "key", getattr(k, "idx", k))))
    return ".".join(parts)


def write_safetensors(path, named):
    """Writes (name, array) pairs as float32 safetensors, in order."""
    header, offset, blobs = {}, 0, []
    for name, arr in named:
        data = np.ascontiguousarray(arr, np.float32).tobytes()
        header[name] = {"dtype": "F32", "shape": list(np.shape(arr)),
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header, separators=(",", ":"))
    text += " " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text.encode())
        for b in blobs:
            f.write(b)


def export(loss, params, *data, path="model"):
    """Lowers loss(params, *data) and writes PATH.stablehlo.mlir and
    PATH-params.safetensors. Returns the number of parameter arrays (the
    leading arguments of the module: pass it as --num-params if the names
    are lost)."""
    import jax

    lowered = jax.jit(loss).lower(params, *data)
    with open(path + ".stablehlo.mlir", "w") as f:
        f.write(lowered.as_text(debug_info=True))
    flat = jax.tree_util.tree_flatten_with_path(params)[0]
    write_safetensors(path + "-params.safetensors",
                      [(param_name(p), np.asarray(v)) for p, v in flat])
    return len(flat)
