//===- WaitPolicy.h - How a rank waits for a message ------------*- C++ -*-===//
//
// Part of the pipewave project.
//
// A rank waiting for a message polls its backend. With a core of its own it
// should poll back to back: giving the core away (sched_yield, a sleep)
// costs microseconds to tens of microseconds when the message lands, and a
// pipeline step waits several times (each stage's first input, the step's
// agreement). With more busy threads than cores on the host, polling back
// to back steals the core from the peer it waits for, so the rank yields
// early and sleeps once the wait is long. Backend::wait() follows the policy
// in three phases: spin (test back to back) until spinSeconds, then yield
// the core between tests until yieldSeconds, then sleep 50 us between
// tests.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_WAITPOLICY_H
#define PIPEWAVE_RUNTIME_WAITPOLICY_H

#include <string>

namespace pipewave::runtime {

/// What --wait asked for.
enum class WaitMode { Auto, Spin, Yield };

/// The phases of one wait, by the time it has waited so far.
enum class WaitPhase { Spin, Yield, Sleep };

struct WaitPolicy {
  /// Test back to back until a wait is this old (seconds).
  double spinSeconds = 5e-6;
  /// Then yield the core between tests until it is this old; then sleep.
  double yieldSeconds = 1e-3;
  /// "spin" or "yield", and why (for --print-memory's report).
  std::string description = "yield";
};

/// A rank that has a core to itself: spins for 2 ms, yields until 50 ms.
WaitPolicy spinningPolicy(const std::string &reason);
/// A rank that shares its cores: spins 5 us, yields until 1 ms.
WaitPolicy yieldingPolicy(const std::string &reason);

/// The policy for `requested` (--wait): Spin and Yield as asked; Auto
/// spins unless the host is oversubscribed: `oversubscribeEnv` (Open MPI's
/// OMPI_MCA_mpi_oversubscribe, null when unset) is "1", or `localRanks`
/// ranks of `threadsPerRank` busy threads each exceed `cpus`.
WaitPolicy chooseWaitPolicy(WaitMode requested, int cpus, int localRanks,
                            int threadsPerRank, const char *oversubscribeEnv);

/// The phase of a wait that has lasted `elapsed` seconds.
WaitPhase waitPhase(const WaitPolicy &policy, double elapsed);

/// The host's online CPUs (at least 1): a rank bound to one core still
/// shares the host with its peers' cores, so this is not its affinity.
int onlineCpus();

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_WAITPOLICY_H
