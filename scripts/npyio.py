"""Small pure-Python .npy helpers shared by pipewave's scripts and tests (no
numpy needed): write a float32 array, and the deterministic test data
0.1 * sin(0.7 * j + 0.1 + phase)."""
import math
import struct


def sine_data(count, phase=0.0):
    """Element j is 0.1 * sin(0.7 * j + 0.1 + phase)."""
    return [0.1 * math.sin(0.7 * j + 0.1 + phase) for j in range(count)]


def write_npy(path, shape, data):
    """Writes `data` (a flat list of floats, C order) as a float32 .npy."""
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % dims
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack("<%df" % len(data), *data))
