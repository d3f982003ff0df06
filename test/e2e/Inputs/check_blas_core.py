"""check_blas_core.py REPORT: reads a --print-memory report and checks that
the OpenBLAS kernels each rank runs fit this CPU: on a CPU with AVX2 and FMA
(/proc/cpuinfo) never OpenBLAS's SSE or AVX kernels, which a DYNAMIC_ARCH
OpenBLAS falls back to on a CPU it does not know (the runtime then restarts
with the kernels for the CPU's instructions, runtime BlasCore.h). Prints
one line per rank: "rank N: fits" or what is wrong."""

import re
import sys

OLD = {"katmai", "coppermine", "northwood", "prescott", "banias", "atom",
       "core2", "penryn", "dunnington", "nehalem", "athlon", "opteron",
       "opteron_sse3", "barcelona", "bobcat", "nano", "unknown",
       "sandybridge", "bulldozer", "piledriver", "steamroller"}


def cpu_flags():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def main():
    flags = cpu_flags()
    modern = "avx2" in flags and "fma" in flags
    found = 0
    for line in open(sys.argv[1]):
        m = re.match(r"threads: rank (\d+): .*OpenBLAS kernels (\w+)", line)
        if not m:
            continue
        found += 1
        rank, core = m.group(1), m.group(2)
        if modern and core.lower() in OLD:
            print("rank %s: runs OpenBLAS's %s kernels on a CPU with AVX2" %
                  (rank, core))
        else:
            print("rank %s: fits" % rank)
    if not found:
        print("no OpenBLAS kernels in the report")


main()
