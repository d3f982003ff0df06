//===- DriverLoopback.cpp - Every rank of a model in this process ---------===//
//
// Part of the pipewave project.
//
// PW_BACKEND=loopback: one Driver per rank, each on a thread of its own with
// its own device (PW_DEVICE) and a loopback backend (Loopback.h). The ranks
// go through the same sequence as under MPI (Main.cpp): a rank whose inputs
// are bad makes every rank stop before the first step, a failure during a
// step aborts the process with the rank's message.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/LaunchEnv.h"
#include "pipewave-runtime/Loopback.h"

namespace pipewave::runtime {

int runLoopback(const pw_model &model, const Options &options) {
  LaunchEnv launch = launchEnvFromProcess();
  if (launch.worldSize > 1)
    usageError(std::string("PW_BACKEND=loopback runs all ") +
               std::to_string(model.num_ranks) +
               " ranks in one process, but the launch environment (" +
               launchSourceName(launch.source) + ") starts " +
               std::to_string(launch.worldSize) +
               " processes; start the binary once, without a launcher");
  std::shared_ptr<LoopbackHub> hub = createLoopbackHub(model.num_ranks);
  return runLoopbackRanks(*hub, [&](int rank) {
    Driver driver(model, options, createLoopbackBackend(hub, rank));
    return driver.run(nullptr, nullptr);
  });
}

} // namespace pipewave::runtime
