//===- WaitPolicy.cpp - How a rank waits for a message --------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/WaitPolicy.h"

#include <algorithm>
#include <cstring>
#include <unistd.h>

namespace pipewave::runtime {

WaitPolicy spinningPolicy(const std::string &reason) {
  return {2e-3, 50e-3, "spin (" + reason + ")"};
}

WaitPolicy yieldingPolicy(const std::string &reason) {
  return {5e-6, 1e-3, "yield (" + reason + ")"};
}

WaitPolicy chooseWaitPolicy(WaitMode requested, int cpus, int localRanks,
                            int threadsPerRank, const char *oversubscribeEnv) {
  if (requested == WaitMode::Spin)
    return spinningPolicy("--wait spin");
  if (requested == WaitMode::Yield)
    return yieldingPolicy("--wait yield");
  if (oversubscribeEnv && std::strcmp(oversubscribeEnv, "1") == 0)
    return yieldingPolicy("the launcher oversubscribes this host");
  cpus = std::max(cpus, 1);
  localRanks = std::max(localRanks, 1);
  threadsPerRank = std::max(threadsPerRank, 1);
  std::string load = std::to_string(localRanks) + " local ranks";
  if (threadsPerRank > 1)
    load += " x " + std::to_string(threadsPerRank) + " GEMM threads";
  load += " on " + std::to_string(cpus) + " CPUs";
  if (static_cast<long>(localRanks) * threadsPerRank > cpus)
    return yieldingPolicy(load);
  return spinningPolicy(load);
}

WaitPhase waitPhase(const WaitPolicy &policy, double elapsed) {
  if (elapsed < policy.spinSeconds)
    return WaitPhase::Spin;
  if (elapsed < policy.yieldSeconds)
    return WaitPhase::Yield;
  return WaitPhase::Sleep;
}

int onlineCpus() {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return cpus < 1 ? 1 : static_cast<int>(std::min(cpus, 1L << 20));
}

} // namespace pipewave::runtime
