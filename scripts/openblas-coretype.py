#!/usr/bin/env python3
"""Prints the OpenBLAS kernels (an OPENBLAS_CORETYPE name) that pipewave's
ranks run on this machine, for harnesses that time stage code without the
runtime (bench/stage-actions, bench/stage-compute):

    export OPENBLAS_CORETYPE=$(python3 scripts/openblas-coretype.py)

OPENBLAS_CORETYPE when set; else OpenBLAS's own choice, unless that is one
of its SSE or AVX kernels on a CPU with AVX2 and FMA (a CPU the library does
not know), where the runtime restarts with the kernels for the CPU's
instructions (runtime/lib/BlasCore.cpp, the same rule). Prints nothing
without OpenBLAS."""

import ctypes
import os

# OpenBLAS's SSE and AVX kernels (lower case).
OLD_CORES = {"katmai", "coppermine", "northwood", "prescott", "banias", "atom",
             "core2", "penryn", "dunnington", "nehalem", "athlon", "opteron",
             "opteron_sse3", "barcelona", "bobcat", "nano", "unknown",
             "sandybridge", "bulldozer", "piledriver", "steamroller"}


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def runtime_core(own, flags=None):
    """The kernels the runtime runs when OpenBLAS's own choice is `own`."""
    flags = cpu_flags() if flags is None else flags
    if own.lower() not in OLD_CORES or not {"avx2", "fma"} <= flags:
        return own
    if {"avx512f", "avx512bw", "avx512dq", "avx512vl"} <= flags:
        return "Cooperlake" if "avx512_bf16" in flags else "SkylakeX"
    return "Haswell"


def own_core():
    """OpenBLAS's choice for this CPU in this environment, or None."""
    try:
        lib = ctypes.CDLL("libopenblas.so.0")
    except OSError:
        return None
    lib.openblas_get_corename.restype = ctypes.c_char_p
    return lib.openblas_get_corename().decode()


def main():
    forced = os.environ.get("OPENBLAS_CORETYPE")
    if forced:
        print(forced)
        return
    own = own_core()
    if own:
        print(runtime_core(own))


if __name__ == "__main__":
    main()
