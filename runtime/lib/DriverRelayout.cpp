//===- DriverRelayout.cpp - Resuming a checkpoint of another layout -------===//
//
// Part of the pipewave project.
//
// A checkpoint names every tensor after its parameter (optimizer state as
// "STATE/PARAMETER"), so a run with other stages, another schedule, other
// replicas or another rank count can resume from it: each rank indexes the
// tensors of every rank file and reads those of its own stages wherever
// they are (CheckpointSet.h). The checkpoint must hold exactly this model's
// parameters (another model is refused naming the first parameter that
// differs), and its stages must have made the same number of updates (the new
// stages mix the old ones' parameters).
//
//===----------------------------------------------------------------------===//

#include "CheckpointSet.h"
#include "Driver.h"

#include "pipewave-runtime/Checkpoint.h"
#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/ModelCheck.h"
#include "pipewave-runtime/Safetensors.h"

#include <set>

namespace pipewave::runtime {

void Driver::resumeAcrossLayouts(
    const std::string &stepDir, const CheckpointManifest &manifest,
    const std::function<void(const std::string &)> &refuse) {
  CheckpointSet files(stepDir, manifest, -1, refuse);
  std::map<int, int64_t> steps;
  for (size_t k = 0; k < files.numFiles(); ++k) {
    const std::string *meta = files.metadata(k, "optimizer_steps");
    std::map<int, int64_t> fileSteps;
    if (!meta || !parseOptimizerSteps(*meta, fileSteps))
      refuse("'" + files.path(k) + "' has no valid optimizer_steps metadata");
    steps.insert(fileSteps.begin(), fileSteps.end());
  }

  // The same parameters by name: the checkpoint's tensors are this model's
  // parameters and their optimizer state, nothing else, nothing missing.
  std::vector<std::string> stateNames = optimizerStateNames(options.optimizer);
  std::set<std::string> parameters;
  for (int i = 0; i < model.num_inputs; ++i)
    if (model.input_is_param[i])
      parameters.insert(inputName(model, i));
  for (const auto &[name, file] : files.names()) {
    if (parameters.count(name))
      continue;
    bool isState = false;
    for (const std::string &state : stateNames)
      isState |= name.rfind(state + "/", 0) == 0 &&
                 parameters.count(name.substr(state.size() + 1));
    if (!isState)
      refuse("it holds tensor '" + name + "', which is not a parameter of " +
             "this model (a checkpoint of another model?)");
  }
  for (const std::string &name : parameters)
    if (!files.names().count(name))
      refuse("it has no tensor for parameter '" + name +
             "' of this model (a checkpoint of another model?)");

  readParametersAndState([&](const std::string &name, int32_t dtype,
                             const std::vector<int64_t> &shape, void *dst,
                             const std::string &what) {
    files.read(name, dtype, shape, dst, what);
  });
  files.verifyUsed();

  // Every old stage made the same number of updates: so do the new ones.
  int64_t count = steps.empty() ? 0 : steps.begin()->second;
  for (const auto &[stage, n] : steps)
    if (n != count)
      refuse("its stages made different numbers of updates (stage " +
             std::to_string(steps.begin()->first) + ": " +
             std::to_string(count) + ", stage " + std::to_string(stage) + ": " +
             std::to_string(n) +
             "), so they cannot be re-partitioned; resume with the layout "
             "it was written for");
  resumedSteps.clear();
  for (int stage = 0; stage < model.num_stages; ++stage)
    resumedSteps[stage] = count;
}

} // namespace pipewave::runtime
