//===- Backend.cpp - Backend base: ordering, clock, watchdog --------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Backend.h"
#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/Tensor.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sched.h>
#include <time.h>

namespace pipewave::runtime {

Backend::~Backend() = default;

RequestId Backend::isendAfter(Device &device, EventId ready, const void *data,
                              size_t bytes, int peer, int64_t tag) {
  device.synchronize(ready);
  return isend(data, bytes, peer, tag);
}

RequestId Backend::irecvAfter(Device &device, EventId ready, void *data,
                              size_t bytes, int peer, int64_t tag) {
  device.synchronize(ready);
  return irecv(data, bytes, peer, tag);
}

RequestId Backend::iallreduceAfter(Device &device, EventId ready, void *data,
                                   size_t count, int32_t dtype, ReduceOp op,
                                   const std::vector<int> &group) {
  device.synchronize(ready);
  return iallreduce(data, count, dtype, op, group);
}

void Backend::createGroups(const std::vector<std::vector<int>> &) {}

double Backend::now() const {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void Backend::wait(RequestId request, const std::string &what) {
  if (request == kNoRequest || test(request))
    return;
  double start = now();
  WaitPhase phase = WaitPhase::Spin;
  for (unsigned tests = 1;; ++tests) {
    if (test(request))
      return;
    // The clock costs tens of nanoseconds: read it every 16th test while
    // spinning, every test once yielding or sleeping.
    if ((tests & 15) && phase == WaitPhase::Spin)
      continue;
    double elapsed = now() - start;
    phase = waitPhase(waitPolicy, elapsed);
    if (phase == WaitPhase::Yield) {
      sched_yield();
    } else if (phase == WaitPhase::Sleep) {
      struct timespec pause = {0, 50 * 1000};
      nanosleep(&pause, nullptr);
    }
    if (timeoutSeconds > 0 && elapsed > timeoutSeconds) {
      char seconds[32];
      std::snprintf(seconds, sizeof(seconds), "%g", timeoutSeconds);
      throw Error(std::string("timed out after ") + seconds +
                  " s waiting for '" + what +
                  "' (a peer died or hangs; raise --timeout if a stage "
                  "legitimately takes longer, 0 disables)");
    }
  }
}

void Backend::allreduceSum(float *data, size_t count,
                           const std::vector<int> &group,
                           const std::string &what) {
  wait(iallreduce(data, count, PW_F32, ReduceOp::Sum, group), what);
}

void Backend::barrier(const std::string &what) { wait(ibarrier(), what); }

bool Backend::agree(bool ok) {
  int32_t value = ok ? 1 : 0;
  wait(iallreduce(&value, 1, PW_I32, ReduceOp::Min, {}),
       "the other ranks to finish checking their inputs");
  return value == 1;
}

bool startedByLauncher() {
  static const char *const kVariables[] = {
      "OMPI_COMM_WORLD_SIZE", "PMIX_RANK",          "PMI_RANK", "PMI_SIZE",
      "MPI_LOCALNRANKS",      "MV2_COMM_WORLD_SIZE"};
  for (const char *name : kVariables)
    if (std::getenv(name))
      return true;
  return false;
}

int launcherRank() {
  static const char *const kVariables[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                           "PMI_RANK", "MV2_COMM_WORLD_RANK"};
  for (const char *name : kVariables)
    if (const char *value = std::getenv(name)) {
      char *end = nullptr;
      long rank = std::strtol(value, &end, 10);
      if (end != value && *end == '\0' && rank >= 0)
        return static_cast<int>(rank);
    }
  return -1;
}

#ifndef PW_HAVE_MPI
bool haveMpiBackend() { return false; }

std::unique_ptr<Backend> createMpiBackend(int *, char ***) {
  throw Error("this runtime was built without MPI; only single-rank models "
              "can run");
}
#endif

} // namespace pipewave::runtime
