//===- DriverCheckpoint.cpp - Writing and resuming checkpoints ------------===//
//
// Part of the pipewave project.
//
// --resume: each rank finds the latest complete checkpoint, checks it
// against the model and this run, and reads its own file (before the first
// step, so a bad checkpoint stops every rank cleanly). --checkpoint-dir:
// each rank writes its file, then rank 0 the manifest. The format is
// Checkpoint.h's.
//
//===----------------------------------------------------------------------===//

#include "CheckpointSet.h"
#include "Driver.h"
#include "TestHooks.h"

#include "pipewave-runtime/Checkpoint.h"
#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/ModelCheck.h"
#include "pipewave-runtime/Safetensors.h"

namespace pipewave::runtime {

void Driver::resume() {
  std::vector<std::string> incomplete;
  std::string stepDir = findLatestCheckpoint(options.checkpointDir, incomplete);
  if (rank == 0)
    for (const std::string &dir : incomplete)
      report(nullptr, "note: skipping incomplete checkpoint '" + dir +
                          "' (no manifest.json: the run stopped while "
                          "writing it)");
  if (stepDir.empty()) {
    if (rank == 0)
      report(nullptr, "note: --resume: no complete checkpoint in '" +
                          options.checkpointDir + "'; starting from step 0");
    return;
  }
  auto refuse = [&](const std::string &message) {
    usageError("cannot resume from checkpoint '" + stepDir + "': " + message);
  };
  CheckpointManifest manifest;
  try {
    manifest = readCheckpointManifest(stepDir);
  } catch (const Error &error) {
    refuse(error.what());
  }
  std::string manifestPath = stepDir + "/manifest.json";
  std::string optimizer = describeOptimizer(options.optimizer);
  if (manifest.optimizer != optimizer)
    refuse("it was written with optimizer '" + manifest.optimizer +
           "' but this run uses '" + optimizer +
           "' (give the same --optimizer and hyper-parameters to resume)");
  std::vector<std::vector<int>> layout = rankStages(model);
  if (manifest.numStages != model.num_stages || manifest.rankStages != layout) {
    // Other stages or ranks: re-partitioned by parameter name.
    resumeAcrossLayouts(stepDir, manifest, refuse);
    finishResume(stepDir, manifest);
    if (rank == 0)
      report(nullptr, "note: the checkpoint was written for " +
                          std::to_string(manifest.numStages) +
                          " stages on ranks " +
                          describeRankStages(manifest.rankStages) +
                          "; its parameters and optimizer state were "
                          "re-partitioned by name for " +
                          std::to_string(model.num_stages) +
                          " stages on ranks " + describeRankStages(layout));
    return;
  }
  bool listed = false;
  for (const CheckpointFile &file : manifest.files)
    listed |= file.rank == rank;
  if (!listed)
    refuse("'" + manifestPath + "' lists no file for rank " +
           std::to_string(rank));
  // Each tensor is stored once (CheckpointSet.h): this rank's own file
  // first, then the file of the lowest rank holding a shared parameter.
  CheckpointSet files(stepDir, manifest, rank, refuse);
  readParametersAndState([&](const std::string &name, int32_t dtype,
                             const std::vector<int64_t> &shape, void *dst,
                             const std::string &what) {
    files.read(name, dtype, shape, dst, what);
  });
  std::string path = files.ownPath();
  const std::string *steps =
      files.metadata(files.ownIndex(), "optimizer_steps");
  if (!steps)
    refuse("'" + path + "' has no optimizer_steps metadata");
  if (!parseOptimizerSteps(*steps, resumedSteps))
    refuse("'" + path + "': malformed optimizer_steps '" + *steps + "'");
  files.verifyUsed();
  std::string fingerprint = modelFingerprint(model);
  if (manifest.fingerprint != fingerprint)
    refuse("it was written by a different model ('" + manifest.model +
           "', fingerprint " + manifest.fingerprint + ") than this one ('" +
           std::string(model.name ? model.name : "") + "', fingerprint " +
           fingerprint + "): the parameters' names, shapes or stages differ");
  finishResume(stepDir, manifest);
}

void Driver::readParametersAndState(const TensorReader &readTensor) {
  std::vector<std::string> stateNames = optimizerStateNames(options.optimizer);
  for (int i = 0; i < model.num_inputs; ++i) {
    if (!model.input_is_param[i] || !used[i])
      continue;
    const pw_tensor_info &info = model.inputs[i];
    std::string name = inputName(model, i);
    readTensor(name, info.dtype, shapeOf(info), inputTensors[i].data(),
               "parameter '" + name + "'");
    if (!isTrainedParameter(model, i))
      continue;
    for (const std::string &state : stateNames) {
      HostTensor tensor(PW_F32, shapeOf(info));
      readTensor(state + "/" + name, PW_F32, shapeOf(info), tensor.data(),
                 "the optimizer's " + state + " of '" + name + "'");
      resumedState[state + "/" + name] = std::move(tensor);
    }
  }
}

void Driver::finishResume(const std::string &stepDir,
                          const CheckpointManifest &manifest) {
  startStep = manifest.step;
  dataPosition = manifest.dataPosition % dataBatches;
  if (rank == 0) {
    report(nullptr, "resuming from checkpoint '" + stepDir + "' (step " +
                        std::to_string(manifest.step) + ")");
    if (manifest.dataBatches != dataBatches)
      report(nullptr, "note: the checkpoint's data files held " +
                          std::to_string(manifest.dataBatches) +
                          " global batches, these hold " +
                          std::to_string(dataBatches) +
                          "; continuing at global batch " +
                          std::to_string(dataPosition));
  }
}

void Driver::restoreState(Executor &executor) {
  std::vector<std::string> stateNames = optimizerStateNames(options.optimizer);
  for (const TrainedParameter &parameter : executor.trainedParameters()) {
    std::string name = inputName(model, parameter.input);
    for (size_t k = 0; k < stateNames.size(); ++k) {
      const HostTensor &tensor = resumedState.at(stateNames[k] + "/" + name);
      executor.setOptimizerState(parameter.input, k,
                                 static_cast<const float *>(tensor.data()));
    }
  }
  for (const auto &[stage, steps] : resumedSteps)
    if (stage >= 0 && stage < model.num_stages &&
        rankHoldsStage(model, rank, stage))
      executor.setOptimizerSteps(stage, steps);
  resumedState.clear();
}

namespace {
/// Starts the report of a rank that could not write its file (the others
/// report "BYTES HASH", see encodeFileReport()).
constexpr char kFailedReport = '!';
} // namespace

bool Driver::saveCheckpoint(Executor &executor, int64_t step,
                            int64_t nextPosition) {
  // A save that fails, or a rank that dies while writing, ends the run:
  // the step lines are out before it starts (e2e/train-resume.test's crash
  // before the manifest).
  std::fflush(stdout);
  std::string stepDir = checkpointStepDir(options.checkpointDir, step);
  executor.downloadParameters();
  // A parameter several ranks hold is stored by the lowest of them, and
  // every holder reports its copy's hash so rank 0 can check they agree.
  std::vector<SafetensorsTensorRef> tensors;
  std::vector<CopyHash> copies;
  std::vector<bool> stored(model.num_inputs, false);
  for (int i = 0; i < model.num_inputs; ++i) {
    if (!model.input_is_param[i] || !used[i])
      continue;
    std::string name = inputName(model, i);
    std::vector<int> holders = parameterHolders(model, i);
    bool state = isStageState(model, i);
    stored[i] = state || holders.empty() || holders[0] == rank;
    if (stored[i])
      tensors.push_back({name, model.inputs[i].dtype, shapeOf(model.inputs[i]),
                         inputTensors[i].data()});
    if (!state && holders.size() > 1) {
      testhooks::perturbCopy(rank, name, inputTensors[i].data());
      copies.emplace_back(name, hashBytes(inputTensors[i].data(),
                                          tensorBytes(model.inputs[i])));
    }
  }
  std::vector<std::string> stateNames = optimizerStateNames(options.optimizer);
  std::vector<HostTensor> state;
  for (const TrainedParameter &parameter : executor.trainedParameters())
    if (stored[parameter.input])
      for (size_t k = 0; k < stateNames.size(); ++k)
        state.push_back(executor.optimizerState(parameter.input, k));
  size_t next = 0;
  for (const TrainedParameter &parameter : executor.trainedParameters())
    if (stored[parameter.input])
      for (size_t k = 0; k < stateNames.size(); ++k)
        tensors.push_back(
            {stateNames[k] + "/" + inputName(model, parameter.input), PW_F32,
             shapeOf(model.inputs[parameter.input]), state[next++].data()});
  RankFileInfo info;
  info.step = step;
  info.rank = rank;
  info.model = model.name ? model.name : "";
  info.optimizer = describeOptimizer(options.optimizer);
  const pw_rank_program &program = model.ranks[rank];
  for (int k = 0; k < program.num_stages; ++k)
    info.optimizerSteps.emplace_back(
        program.stages[k], executor.optimizerSteps(program.stages[k]));
  info.dataPosition = nextPosition;
  // A rank that cannot write its file (a full disk, a directory it may not
  // write) reports it instead; every rank then stops.
  std::string report;
  try {
    report = encodeFileReport(
        writeCheckpointFile(stepDir, rank, tensors, rankFileMetadata(info)),
        copies);
  } catch (const Error &error) {
    report = std::string(1, kFailedReport) + error.what();
  }

  // Rank 0 writes the manifest once every rank's file is on disk.
  std::vector<std::string> all = backend->gather(report, 0);
  std::string problem;
  if (rank == 0) {
    for (size_t r = 0; r < all.size() && problem.empty(); ++r)
      if (!all[r].empty() && all[r][0] == kFailedReport)
        problem = (all.size() > 1 ? "rank " + std::to_string(r) + ": " : "") +
                  all[r].substr(1);
    if (problem.empty())
      problem = checkCopies(all);
    if (problem.empty()) {
      try {
        writeManifest(stepDir, step, nextPosition, all);
      } catch (const Error &error) {
        problem = error.what();
      }
    }
  }
  if (backend->agree(problem.empty()))
    return true;
  if (rank == 0)
    pipewave::runtime::report(
        nullptr, "checkpoint of step " + std::to_string(step) +
                     " failed: " + problem +
                     "; stopping. The checkpoints completed before it are "
                     "intact (--resume skips this incomplete one)");
  return false;
}

std::string Driver::checkCopies(const std::vector<std::string> &reports) {
  // name -> (rank, hash) of the first copy reported.
  std::map<std::string, std::pair<int, uint64_t>> first;
  for (int r = 0; r < static_cast<int>(reports.size()); ++r) {
    std::vector<CopyHash> hashes;
    decodeFileReport(reports[r], r, &hashes);
    for (const auto &[name, hash] : hashes) {
      auto [it, added] = first.emplace(name, std::make_pair(r, hash));
      if (!added && it->second.second != hash)
        return "the copies of parameter '" + name + "' differ: rank " +
               std::to_string(it->second.first) + "'s has hash " +
               hexHash(it->second.second) + ", rank " + std::to_string(r) +
               "'s " + hexHash(hash) +
               " (every rank holding a parameter must keep the same values; "
               "this is a bug of pipewave or of the machine)";
    }
  }
  return "";
}

void Driver::writeManifest(const std::string &stepDir, int64_t step,
                           int64_t nextPosition,
                           const std::vector<std::string> &reports) {
  CheckpointManifest manifest;
  manifest.step = step;
  manifest.dataPosition = nextPosition;
  manifest.dataBatches = dataBatches;
  manifest.model = model.name ? model.name : "";
  manifest.fingerprint = modelFingerprint(model);
  manifest.numRanks = model.num_ranks;
  manifest.numStages = model.num_stages;
  manifest.numMicrobatches = model.num_microbatches;
  manifest.replicas = numReplicas(model);
  manifest.rankStages = rankStages(model);
  manifest.optimizer = describeOptimizer(options.optimizer);
  std::map<std::string, CheckpointCopy> copies;
  for (int r = 0; r < static_cast<int>(reports.size()); ++r) {
    std::vector<CopyHash> hashes;
    manifest.files.push_back(decodeFileReport(reports[r], r, &hashes));
    for (const auto &[name, hash] : hashes) {
      CheckpointCopy &copy = copies[name];
      copy.name = name;
      copy.ranks.push_back(r);
      copy.hash = hash;
    }
  }
  for (auto &[name, copy] : copies)
    manifest.copies.push_back(std::move(copy));
  testhooks::beforeManifest(backend.get(), step);
  writeCheckpointManifest(stepDir, manifest);
  printLine("checkpoint: " + stepDir);
}

} // namespace pipewave::runtime
