"""check_small_gemm.py REPORT EXPECT: reads a --print-memory report and
checks, for every rank, whether its threads line says that products of few
rows run on pipewave's AVX-512 kernel (lib/Target/CPU/SmallGemm.c). EXPECT
"cpu": it must say so exactly when this CPU has AVX-512 F (/proc/cpuinfo);
"off": it must not (PIPEWAVE_GEMM=blas, or more than one OpenBLAS thread).
Prints one line per rank: "rank N: as expected" or what is wrong."""

import importlib
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "scripts"))
coretype = importlib.import_module("openblas-coretype")

PHRASE = "few-row products on pipewave's AVX-512 kernel"


def main():
    path, expect = sys.argv[1], sys.argv[2]
    want = expect == "cpu" and "avx512f" in coretype.cpu_flags()
    found = 0
    for line in open(path):
        m = re.match(r"threads: rank (\d+): ", line)
        if not m:
            continue
        found += 1
        says = PHRASE in line
        if says == want:
            print("rank %s: as expected" % m.group(1))
        else:
            print("rank %s: %s the kernel: %s" %
                  (m.group(1), "reports" if says else "does not report",
                   line.strip()))
    if not found:
        print("no threads line in " + path)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
