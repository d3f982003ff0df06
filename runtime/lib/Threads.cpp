//===- Threads.cpp - GEMM threads of each rank ----------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Threads.h"

#include "pipewave-runtime/BlasCore.h"

#include <algorithm>
#include <cstdlib>
#include <dlfcn.h>
#include <sched.h>

namespace pipewave::runtime {

namespace {

/// A positive thread count in `text`, or 0.
int positive(const char *text) {
  if (!text || !*text)
    return 0;
  char *end = nullptr;
  long value = std::strtol(text, &end, 10);
  return *end || value < 1 || value > 4096 ? 0 : static_cast<int>(value);
}

} // namespace

ThreadChoice chooseThreads(int requested, int cpus, int localRanks,
                           const char *openblasEnv, const char *ompEnv) {
  if (requested > 0)
    return {requested, "--threads"};
  // OpenBLAS reads these itself; the user's word stands.
  if (positive(openblasEnv))
    return {0, "OPENBLAS_NUM_THREADS"};
  if (positive(ompEnv))
    return {0, "OMP_NUM_THREADS"};
  cpus = std::max(cpus, 1);
  localRanks = std::max(localRanks, 1);
  return {std::max(1, cpus / localRanks), std::to_string(cpus) + " CPUs / " +
                                              std::to_string(localRanks) +
                                              " local ranks"};
}

int availableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0)
    return 1;
  return std::max(1, CPU_COUNT(&set));
}

bool setGemmThreads(int threads) {
  using SetThreads = void (*)(int);
  auto set = reinterpret_cast<SetThreads>(
      dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  if (!set)
    return false;
  set(threads);
  return true;
}

std::string describeGemmKernels(const char *core, const char *coretypeEnv,
                                const char *ownCoreEnv) {
  if (!core || !*core)
    return "";
  std::string text = "OpenBLAS kernels " + std::string(core);
  if (coretypeEnv && *coretypeEnv && ownCoreEnv && *ownCoreEnv)
    text += " (chosen for this CPU's instructions: this OpenBLAS does not "
            "know the CPU and chose " +
            std::string(ownCoreEnv) + ")";
  else if (coretypeEnv && *coretypeEnv)
    text += " (as OPENBLAS_CORETYPE says)";
  return text;
}

std::string gemmKernels(const char *coretypeEnv, const char *ownCoreEnv) {
  return describeGemmKernels(openBlasCoreName(), coretypeEnv, ownCoreEnv);
}

} // namespace pipewave::runtime
