#!/usr/bin/env python3
"""make-npy.py FILE DIM... writes a float32 .npy (C order) whose element j
is 0.1 * sin(0.7 * j + 0.1): deterministic data for the quick start, the
tests and the benchmarks, pure Python."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from npyio import sine_data, write_npy  # noqa: E402

path, shape = sys.argv[1], [int(d) for d in sys.argv[2:]]
count = 1
for d in shape:
    count *= d
write_npy(path, shape, sine_data(count))
