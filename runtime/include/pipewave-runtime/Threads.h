//===- Threads.h - GEMM threads of each rank --------------------*- C++ -*-===//
//
// Part of the pipewave project.
//
// The CPU stage code runs its f32 matmuls through OpenBLAS, whose threaded
// build starts one thread per CPU the process may use in every process. A
// host running several ranks would then run ranks x CPUs busy threads on
// its CPUs, each rank's GEMMs fighting the others'. The runtime sets the
// number of GEMM threads of each rank: --threads N, else what the user set
// in OPENBLAS_NUM_THREADS (or OMP_NUM_THREADS), else the CPUs this process
// may run on divided among the ranks on this host (at least one).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_THREADS_H
#define PIPEWAVE_RUNTIME_THREADS_H

#include <string>

namespace pipewave::runtime {

/// The decision and where it came from.
struct ThreadChoice {
  /// GEMM threads of this rank; 0: leave the library's setting.
  int threads = 0;
  /// "--threads", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS" or
  /// "N CPUs / M local ranks".
  std::string reason;
};

/// `requested` is --threads (0: not given), `cpus` the CPUs this process may
/// run on, `localRanks` the ranks sharing them (this host's ranks, or every
/// rank of a loopback run), `openblasEnv` and `ompEnv` the variables (null
/// when unset).
ThreadChoice chooseThreads(int requested, int cpus, int localRanks,
                           const char *openblasEnv, const char *ompEnv);

/// The CPUs this process may run on (its affinity mask; at least 1).
int availableCpus();

/// Sets OpenBLAS's thread count when the process has OpenBLAS loaded; false
/// when it has not (the stage code then runs no threaded GEMMs).
bool setGemmThreads(int threads);

/// "OpenBLAS kernels NAME" for the kernels that run (OpenBLAS's
/// openblas_get_corename()), with "(as OPENBLAS_CORETYPE says)" when
/// `coretypeEnv` (the variable, null when unset) forced them, or with why
/// the runtime chose them when `ownCoreEnv` (kOpenBlasOwnCoreVariable of
/// BlasCore.h) names the kernels OpenBLAS chose on its own; empty when the
/// process has no OpenBLAS. Forcing older kernels (e.g. Haswell's AVX2 on an
/// AVX-512 CPU) can halve the GEMM rate.
std::string gemmKernels(const char *coretypeEnv, const char *ownCoreEnv);

/// gemmKernels()'s text for OpenBLAS's core name `core` (null or empty: no
/// OpenBLAS).
std::string describeGemmKernels(const char *core, const char *coretypeEnv,
                                const char *ownCoreEnv = nullptr);

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_THREADS_H
