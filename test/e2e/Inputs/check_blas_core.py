"""check_blas_core.py REPORT: reads a --print-memory report and checks that
the OpenBLAS kernels each rank runs fit this CPU: on a CPU with AVX2 and FMA
(/proc/cpuinfo) never OpenBLAS's SSE or AVX kernels, which a DYNAMIC_ARCH
OpenBLAS falls back to on a CPU it does not know (the runtime then restarts
with the kernels for the CPU's instructions, runtime BlasCore.h). Prints
one line per rank: "rank N: fits" or what is wrong."""

import importlib
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "scripts"))
coretype = importlib.import_module("openblas-coretype")


def main():
    flags = coretype.cpu_flags()
    modern = "avx2" in flags and "fma" in flags
    found = 0
    for line in open(sys.argv[1]):
        m = re.match(r"threads: rank (\d+): .*OpenBLAS kernels (\w+)", line)
        if not m:
            continue
        found += 1
        rank, core = m.group(1), m.group(2)
        if modern and core.lower() in coretype.OLD_CORES:
            print("rank %s: runs OpenBLAS's %s kernels on a CPU with AVX2" %
                  (rank, core))
        else:
            print("rank %s: fits" % rank)
    if not found:
        print("no OpenBLAS kernels in the report")


main()
