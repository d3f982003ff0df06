//===- BlasCore.h - OpenBLAS kernels for CPUs it does not know --*- C++ -*-===//
//
// Part of the pipewave project.
//
// OpenBLAS built with DYNAMIC_ARCH picks its kernels for the CPU when it is
// loaded. A CPU newer than the build (an Intel Xeon of family 6 model 207
// under Debian 12's OpenBLAS 0.3.21) is one it does not know, and it falls
// back to its generic SSE kernels, Prescott: a 256x512x512 sgemm then runs
// at 20-44 GFLOP/s on one core where the same library's AVX-512 kernels run
// at 104-151 (docs/bench.md). The library reads OPENBLAS_CORETYPE only while
// it loads, before the program runs. So at start-up a rank whose OpenBLAS
// chose kernels older than the CPU's instruction set (SSE or AVX kernels on
// a CPU with AVX2 and FMA) sets OPENBLAS_CORETYPE to the kernels for the
// CPU's instruction set and runs its own executable again, once: SkylakeX
// for AVX-512 (F, BW, DQ, VL), Cooperlake when it also has AVX-512 BF16,
// Haswell for AVX2 and FMA. A user's OPENBLAS_CORETYPE (some environments
// set an older core on purpose) is left alone, and so is a choice OpenBLAS
// made for a CPU it knows (Zen 4's AVX2 kernels, say).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_BLASCORE_H
#define PIPEWAVE_RUNTIME_BLASCORE_H

#include <optional>
#include <string>
#include <string_view>

namespace pipewave::runtime {

/// The vector instructions of a CPU that OpenBLAS's kernels use.
struct CpuVectorIsa {
  bool avx2Fma = false;
  /// AVX-512 F, BW, DQ and VL, with the operating system saving the state.
  bool avx512 = false;
  bool avx512Bf16 = false;
};

/// This process's CPU.
CpuVectorIsa hostVectorIsa();

/// The OpenBLAS kernels to force for a CPU with `isa` when OpenBLAS chose
/// `core` (its openblas_get_corename()); nullopt when its choice stands:
/// it chose AVX2 kernels or newer, the CPU has no AVX2, or `core` is a
/// name not known here.
std::optional<std::string> betterOpenBlasCore(std::string_view core,
                                              const CpuVectorIsa &isa);

/// The kernels OpenBLAS runs (its openblas_get_corename(), found at run
/// time); null when the process has no OpenBLAS (every matmul vectorised).
const char *openBlasCoreName();

/// The variable that tells the restarted process which kernels OpenBLAS
/// chose on its own (so that --print-memory can say why they changed).
inline constexpr const char *kOpenBlasOwnCoreVariable =
    "PW_OPENBLAS_OWN_CORETYPE";

/// At start-up, before anything else: when this process's OpenBLAS runs
/// kernels older than the CPU's (betterOpenBlasCore) and the user has not
/// set OPENBLAS_CORETYPE, sets it (and kOpenBlasOwnCoreVariable) and
/// executes this program again with `argv`. Returns only when nothing is
/// to be done or the restart failed (then the process goes on with
/// OpenBLAS's kernels).
void restartForBetterBlasKernels(char **argv);

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_BLASCORE_H
