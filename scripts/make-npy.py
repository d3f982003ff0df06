#!/usr/bin/env python3
"""make-npy.py FILE DIM... writes a float32 .npy (C order) whose element j is
0.1 * sin(0.7 * j + 0.1): deterministic data for the quick start and
the benchmarks, pure Python."""
import math
import struct
import sys

path, shape = sys.argv[1], [int(d) for d in sys.argv[2:]]
count = 1
for d in shape:
    count *= d
dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % dims
header += " " * (63 - (10 + len(header)) % 64) + "\n"
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
    f.write(header.encode("latin1"))
    f.write(struct.pack("<%df" % count,
                        *[0.1 * math.sin(0.7 * j + 0.1) for j in range(count)]))
