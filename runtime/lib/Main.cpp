//===- Main.cpp - pw_runtime_main: the driver of a compiled model ---------===//
//
// Part of the pipewave project.
//
// 1. Parse the command line (no MPI yet: --help, --print-ranks and
//    --print-plan work without a launcher).
// 2. Validate the model, pick the backend (MPI under a launcher, else the
//    local one) and check the number of ranks: every rank detects a mismatch
//    itself and exits 2.
// 3. Each rank checks every input it can (all .npy headers, the whole --init
//    header), loads what its stages read and plans its buffers; the ranks
//    then agree, so an error anywhere stops all of them (exit 2) before any
//    schedule message is sent.
//    Training: --resume loads the rank's part of the latest complete
//    checkpoint here too, so a bad checkpoint stops every rank cleanly.
// 4. Run the steps; any failure now aborts the whole job (exit 1). Each
//    step reads the next global batch of the data files. Training prints
//    the loss per step (and --log-json), and writes checkpoints.
// 5. The rank holding the last stage (of replica 0) prints step times and
//    output checksums, writes --out and checks --expect; rank 0 writes
//    --trace.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Backend.h"
#include "pipewave-runtime/Checkpoint.h"
#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/Executor.h"
#include "pipewave-runtime/File.h"
#include "pipewave-runtime/Init.h"
#include "pipewave-runtime/ModelCheck.h"
#include "pipewave-runtime/Npy.h"
#include "pipewave-runtime/Options.h"
#include "pipewave-runtime/Plan.h"
#include "pipewave-runtime/Safetensors.h"
#include "pipewave-runtime/Trace.h"
#include "pipewave-runtime/model.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <unistd.h>

namespace pipewave::runtime {

namespace {

/// Prints "pipewave: [rank R: ]message" on stderr.
void report(const Backend *backend, const std::string &message) {
  std::fflush(stdout);
  if (backend && backend->size() > 1)
    std::fprintf(stderr, "pipewave: rank %d: %s\n", backend->rank(),
                 message.c_str());
  else
    std::fprintf(stderr, "pipewave: %s\n", message.c_str());
  std::fflush(stderr);
}

/// Prints a line on stdout at once (mpirun forwards whole lines).
void printLine(const std::string &line) {
  std::fputs((line + "\n").c_str(), stdout);
  std::fflush(stdout);
}

std::string baseName(const char *path) {
  std::string text = path ? path : "model";
  size_t slash = text.find_last_of('/');
  return slash == std::string::npos ? text : text.substr(slash + 1);
}

std::string formatDouble(const char *format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

class Driver {
public:
  Driver(const pw_model &model, Options options)
      : model(model), options(std::move(options)) {}
  ~Driver() {
    if (logFile)
      std::fclose(logFile);
  }

  int run(int *argc, char ***argv);

private:
  const pw_model &model;
  Options options;
  std::unique_ptr<Backend> backend;
  int rank = 0;
  bool isOutputRank = false;
  bool training = false;
  std::vector<HostTensor> inputTensors;
  std::vector<bool> used;
  std::map<int, HostTensor> expected;
  RankPlan plan;
  /// Global batches the data files hold (all the same), the rows of one.
  int64_t dataBatches = 1;
  int64_t globalBatch = 0;
  /// Training: steps done before this run (from --resume) and the global
  /// batch the first step of this run reads.
  int64_t startStep = 0;
  int64_t dataPosition = 0;
  /// From the checkpoint: optimizer state by tensor name, update counts by
  /// stage.
  std::map<std::string, HostTensor> resumedState;
  std::map<int, int64_t> resumedSteps;
  FILE *logFile = nullptr;

  std::unique_ptr<Backend> chooseBackend(int *argc, char ***argv);
  void prepare();
  void loadData();
  void loadParameters();
  void resume();
  void prepareOutputs();
  int execute();
  void setBatch(Executor &executor, int64_t position);
  void restoreState(Executor &executor);
  void saveCheckpoint(const Executor &executor, int64_t step,
                      int64_t nextPosition);
  std::vector<HostTensor> combineReplicaOutputs(const Executor &executor);
  int finishOutputs(const std::vector<HostTensor> &outputs);
};

std::unique_ptr<Backend> Driver::chooseBackend(int *argc, char ***argv) {
  const char *forced = std::getenv("PW_BACKEND");
  std::string choice = forced ? forced : "";
  if (choice == "local" || (choice.empty() && !startedByLauncher()))
    return createLocalBackend();
  if (choice != "mpi" && !choice.empty())
    usageError("PW_BACKEND must be 'local' or 'mpi', not '" + choice + "'");
  return createMpiBackend(argc, argv);
}

int Driver::run(int *argc, char ***argv) {
  backend = chooseBackend(argc, argv);
  backend->setTimeout(options.timeout);
  rank = backend->rank();
  if (backend->size() != model.num_ranks) {
    std::fflush(stdout);
    std::fprintf(stderr,
                 "pipewave: this binary was compiled for %d ranks but was "
                 "started with %d (use pipewave-run -n %d or mpirun -np %d)\n",
                 model.num_ranks, backend->size(), model.num_ranks,
                 model.num_ranks);
    std::fflush(stderr);
    return ExitUsage;
  }
  isOutputRank = rank == outputRank(model);

  std::string failure;
  int failureCode = ExitUsage;
  try {
    prepare();
  } catch (const Error &error) {
    failure = error.what();
    failureCode = error.exitCode;
  } catch (const std::exception &error) {
    failure = error.what();
    failureCode = ExitFailure;
  }
  if (!failure.empty())
    report(backend.get(), failure);
  if (!backend->agree(failure.empty())) {
    if (failure.empty())
      report(backend.get(), "stopping: another rank reported an error");
    return failure.empty() ? ExitUsage : failureCode;
  }

  try {
    return execute();
  } catch (const Error &error) {
    backend->abort(error.what(), error.exitCode);
  } catch (const std::exception &error) {
    backend->abort(error.what(), ExitFailure);
  }
  return ExitFailure; // Not reached: abort() ends the job.
}

void Driver::prepare() {
  training = !model.forward_only;
  if (!training) {
    std::vector<std::string> given = options.trainingOptions;
    if (!options.logJson.empty())
      given.push_back("--log-json");
    if (!options.checkpointDir.empty())
      given.push_back("--checkpoint-dir");
    if (options.resume)
      given.push_back("--resume");
    if (!given.empty())
      usageError(given.front() +
                 " is a training option, but this binary was compiled for "
                 "inference (forward only)");
  }
  used.assign(model.num_inputs, false);
  const pw_rank_program &program = model.ranks[rank];
  for (int k = 0; k < program.num_stages; ++k) {
    const pw_stage &stage = model.stages[program.stages[k]];
    for (int a = 0; a < stage.num_args; ++a)
      if (stage.arg_source[a] != PW_FROM_PREVIOUS)
        used[stage.arg_index[a]] = true;
  }
  inputTensors.resize(model.num_inputs);
  loadData();
  loadParameters();
  if (training && options.resume)
    resume();
  prepareOutputs();
  if (isOutputRank && !options.logJson.empty()) {
    logFile = std::fopen(options.logJson.c_str(), options.resume ? "a" : "w");
    if (!logFile)
      usageError("--log-json: cannot open '" + options.logJson +
                 "' for writing");
  }
  PlanOptions planOptions;
  planOptions.spareSlots = options.spareSlots;
  plan = planRank(model, rank, planOptions);
}

void Driver::loadData() {
  std::map<std::string, int> byName;
  std::string dataNames;
  for (int i = 0; i < model.num_inputs; ++i) {
    byName[inputName(model, i)] = i;
    if (!model.input_is_param[i])
      dataNames += (dataNames.empty() ? "" : ", ") + inputName(model, i);
  }
  std::map<int, std::string> files;
  for (const auto &[name, file] : options.data) {
    auto it = byName.find(name);
    if (it == byName.end())
      usageError("--data " + name + "=" + file +
                 ": the model has no data input '" + name + "' (data inputs: " +
                 (dataNames.empty() ? "none" : dataNames) + ")");
    if (model.input_is_param[it->second])
      usageError("--data " + name + "=" + file + ": '" + name +
                 "' is a parameter, not a data input (give parameters with "
                 "--init FILE.safetensors)");
    if (files.count(it->second))
      usageError("--data given twice for '" + name + "'");
    files[it->second] = file;
  }
  std::string missing;
  for (int i = 0; i < model.num_inputs; ++i)
    if (!model.input_is_param[i] && !files.count(i))
      missing += (missing.empty() ? "'" : ", '") + inputName(model, i) + "'";
  if (!missing.empty())
    usageError("missing data input " + missing +
               " (give each with --data NAME=FILE.npy; see --help)");

  // Every rank checks every file's header, so all report the same error. A
  // file holds one global batch or several (dimension 0 a multiple of the
  // model's), used in turn, one per step.
  int replicas = numReplicas(model);
  std::string firstName;
  for (const auto &[index, file] : files) {
    const pw_tensor_info &input = model.inputs[index];
    NpyHeader header = readNpyHeader(file);
    std::vector<int64_t> expected = shapeOf(input);
    std::vector<int64_t> inner(expected.begin() + 1, expected.end());
    bool ok = header.dtype == input.dtype &&
              header.shape.size() == expected.size() && expected[0] > 0 &&
              header.shape[0] > 0 && header.shape[0] % expected[0] == 0 &&
              std::vector<int64_t>(header.shape.begin() + 1,
                                   header.shape.end()) == inner;
    if (!ok) {
      std::vector<int64_t> micro = microbatchShape(
          expected, model.num_microbatches * replicas, inputName(model, index));
      usageError(
          "data input '" + inputName(model, index) + "': '" + file +
          "' holds " + dtypeName(header.dtype) + " " +
          shapeString(header.shape) + " but the model expects " +
          dtypeName(input.dtype) + " " + shapeString(expected) +
          " (the global batch: " +
          (replicas > 1 ? std::to_string(replicas) + " replicas x " : "") +
          std::to_string(model.num_microbatches) + " microbatches of " +
          shapeString(micro) + ") or a multiple of " +
          std::to_string(expected[0]) + " rows (one global batch per step)");
    }
    int64_t batches = header.shape[0] / expected[0];
    if (firstName.empty()) {
      firstName = inputName(model, index);
      dataBatches = batches;
      globalBatch = expected[0];
    } else if (batches != dataBatches) {
      usageError("the data files hold different numbers of global batches: '" +
                 firstName + "' " + std::to_string(dataBatches) + ", '" +
                 inputName(model, index) + "' " + std::to_string(batches) +
                 " (each step reads the next global batch of every file)");
    }
  }
  for (const auto &[index, file] : files)
    if (used[index])
      inputTensors[index] = readNpy(file);
}

void Driver::loadParameters() {
  bool any = false;
  for (int i = 0; i < model.num_inputs; ++i)
    any |= model.input_is_param[i] != 0;
  if (!any)
    return;
  if (options.initFile.empty()) {
    if (rank == 0)
      report(nullptr, "no --init file: parameters initialised "
                      "deterministically (uniform +-1/sqrt(fan_in), seed " +
                          std::to_string(options.seed) + ")");
    for (int i = 0; i < model.num_inputs; ++i) {
      if (!model.input_is_param[i] || !used[i])
        continue;
      const pw_tensor_info &info = model.inputs[i];
      inputTensors[i] = HostTensor(info.dtype, shapeOf(info));
      initParameter(inputName(model, i), info.dtype, shapeOf(info),
                    options.seed, inputTensors[i].data());
    }
    return;
  }
  SafetensorsReader reader(options.initFile);
  std::set<std::string> names;
  for (int i = 0; i < model.num_inputs; ++i) {
    if (!model.input_is_param[i])
      continue;
    std::string name = inputName(model, i);
    names.insert(name);
    const pw_tensor_info &info = model.inputs[i];
    const SafetensorsEntry *entry = reader.find(name);
    if (!entry)
      usageError("--init '" + options.initFile + "' has no tensor '" + name +
                 "' for parameter '" + name + "' (" + dtypeName(info.dtype) +
                 " " + shapeString(shapeOf(info)) + ")");
    if (entry->dtype != info.dtype || entry->shape != shapeOf(info))
      usageError("--init '" + options.initFile + "': tensor '" + name +
                 "' is " + dtypeName(entry->dtype) + " " +
                 shapeString(entry->shape) + " but parameter '" + name +
                 "' is " + dtypeName(info.dtype) + " " +
                 shapeString(shapeOf(info)));
  }
  for (int i = 0; i < model.num_inputs; ++i) {
    if (!model.input_is_param[i] || !used[i])
      continue;
    const pw_tensor_info &info = model.inputs[i];
    inputTensors[i] = HostTensor(info.dtype, shapeOf(info));
    reader.read(inputName(model, i), info.dtype, shapeOf(info),
                inputTensors[i].data());
  }
  if (rank == 0) {
    std::string unused;
    int count = 0;
    for (const SafetensorsEntry &entry : reader.entries())
      if (!names.count(entry.name) && count++ < 8)
        unused += (unused.empty() ? "" : ", ") + entry.name;
    if (count)
      report(nullptr, "note: ignoring " + std::to_string(count) +
                          " tensor(s) of '" + options.initFile +
                          "' that are not parameters of the model: " + unused +
                          (count > 8 ? ", ..." : ""));
  }
}

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
  std::vector<std::vector<int>> layout = rankStages(model);
  if (manifest.numStages != model.num_stages || manifest.rankStages != layout)
    refuse("it was written for " + std::to_string(manifest.numStages) +
           " stages on ranks " + describeRankStages(manifest.rankStages) +
           " but this binary has " + std::to_string(model.num_stages) +
           " stages on ranks " + describeRankStages(layout) +
           " (resuming needs the same stages on every rank)");
  std::string optimizer = describeOptimizer(options.optimizer);
  if (manifest.optimizer != optimizer)
    refuse("it was written with optimizer '" + manifest.optimizer +
           "' but this run uses '" + optimizer +
           "' (give the same --optimizer and hyper-parameters to resume)");
  const CheckpointFile *entry = nullptr;
  for (const CheckpointFile &file : manifest.files)
    if (file.rank == rank)
      entry = &file;
  if (!entry)
    refuse("'" + manifestPath + "' lists no file for rank " +
           std::to_string(rank));
  std::string path = stepDir + "/" + entry->name;

  std::unique_ptr<SafetensorsReader> reader;
  try {
    reader = std::make_unique<SafetensorsReader>(path);
  } catch (const Error &error) {
    refuse(error.what());
  }
  auto readTensor = [&](const std::string &name, int32_t dtype,
                        const std::vector<int64_t> &shape, void *dst,
                        const std::string &what) {
    const SafetensorsEntry *found = reader->find(name);
    if (!found)
      refuse("'" + path + "' has no tensor '" + name + "' (" + what + ")");
    if (found->dtype != dtype || found->shape != shape)
      refuse("'" + path + "': tensor '" + name + "' is " +
             dtypeName(found->dtype) + " " + shapeString(found->shape) +
             " but " + what + " is " + dtypeName(dtype) + " " +
             shapeString(shape));
    try {
      reader->read(name, dtype, shape, dst);
    } catch (const Error &error) {
      refuse(error.what());
    }
  };
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
  // Update counts per stage: "0:10,1:10".
  auto meta = reader->metadata().find("optimizer_steps");
  if (meta == reader->metadata().end())
    refuse("'" + path + "' has no optimizer_steps metadata");
  std::string counts = meta->second;
  for (size_t at = 0; at < counts.size();) {
    size_t comma = counts.find(',', at);
    std::string item = counts.substr(
        at, comma == std::string::npos ? std::string::npos : comma - at);
    size_t colon = item.find(':');
    if (colon == std::string::npos)
      refuse("'" + path + "': malformed optimizer_steps '" + counts + "'");
    resumedSteps[std::atoi(item.substr(0, colon).c_str())] =
        std::atoll(item.substr(colon + 1).c_str());
    if (comma == std::string::npos)
      break;
    at = comma + 1;
  }
  CheckpointFile actual = hashFile(path);
  if (actual.bytes != entry->bytes || actual.hash != entry->hash)
    refuse("'" + path + "' does not match '" + manifestPath + "' (" +
           std::to_string(actual.bytes) + " bytes, hash " +
           hexHash(actual.hash) + "; the manifest records " +
           std::to_string(entry->bytes) + " bytes, hash " +
           hexHash(entry->hash) + "): it was modified or truncated");
  std::string fingerprint = modelFingerprint(model);
  if (manifest.fingerprint != fingerprint)
    refuse("it was written by a different model ('" + manifest.model +
           "', fingerprint " + manifest.fingerprint + ") than this one ('" +
           std::string(model.name ? model.name : "") + "', fingerprint " +
           fingerprint + "): the parameters' names, shapes or stages differ");
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

void Driver::prepareOutputs() {
  std::map<std::string, int> byName;
  for (int o = 0; o < model.num_outputs; ++o)
    byName[outputName(model, o)] = o;
  for (const auto &[name, file] : options.expect) {
    auto it = byName.find(name);
    if (it == byName.end())
      usageError("--expect " + name + "=" + file +
                 ": the model has no output '" + name + "'");
    if (!isOutputRank)
      continue;
    const pw_tensor_info &info = model.outputs[it->second];
    HostTensor tensor = readNpy(file);
    if (tensor.dtype != info.dtype || tensor.shape != shapeOf(info))
      usageError("--expect " + name + "=" + file + ": the file holds " +
                 dtypeName(tensor.dtype) + " " + shapeString(tensor.shape) +
                 " but output '" + name + "' is " + dtypeName(info.dtype) +
                 " " + shapeString(shapeOf(info)));
    expected[it->second] = std::move(tensor);
  }
  if (isOutputRank && !options.outDir.empty())
    makeDirectories(options.outDir);
}

void Driver::setBatch(Executor &executor, int64_t position) {
  for (int i = 0; i < model.num_inputs; ++i)
    if (!model.input_is_param[i] && used[i])
      executor.setInput(i, static_cast<const char *>(inputTensors[i].data()) +
                               static_cast<size_t>(position) *
                                   tensorBytes(model.inputs[i]));
}

void Driver::restoreState(Executor &executor) {
  std::vector<std::string> stateNames = optimizerStateNames(options.optimizer);
  for (const TrainedParameter &parameter : executor.trainedParameters()) {
    std::string name = inputName(model, parameter.input);
    for (size_t k = 0; k < stateNames.size(); ++k) {
      const HostTensor &tensor = resumedState.at(stateNames[k] + "/" + name);
      std::memcpy(parameter.state[k], tensor.data(),
                  parameter.count * sizeof(float));
    }
  }
  for (const auto &[stage, steps] : resumedSteps)
    if (stage >= 0 && stage < model.num_stages &&
        rankHoldsStage(model, rank, stage))
      executor.setOptimizerSteps(stage, steps);
  resumedState.clear();
}

void Driver::saveCheckpoint(const Executor &executor, int64_t step,
                            int64_t nextPosition) {
  std::string stepDir = checkpointStepDir(options.checkpointDir, step);
  std::vector<SafetensorsTensorRef> tensors;
  for (int i = 0; i < model.num_inputs; ++i)
    if (model.input_is_param[i] && used[i])
      tensors.push_back({inputName(model, i), model.inputs[i].dtype,
                         shapeOf(model.inputs[i]), inputTensors[i].data()});
  std::vector<std::string> stateNames = optimizerStateNames(options.optimizer);
  for (const TrainedParameter &parameter : executor.trainedParameters())
    for (size_t k = 0; k < stateNames.size(); ++k)
      tensors.push_back(
          {stateNames[k] + "/" + inputName(model, parameter.input), PW_F32,
           shapeOf(model.inputs[parameter.input]), parameter.state[k]});
  std::string counts;
  const pw_rank_program &program = model.ranks[rank];
  for (int k = 0; k < program.num_stages; ++k)
    counts += (k ? "," : "") + std::to_string(program.stages[k]) + ":" +
              std::to_string(executor.optimizerSteps(program.stages[k]));
  std::map<std::string, std::string> metadata = {
      {"format", "pipewave-checkpoint"},
      {"step", std::to_string(step)},
      {"rank", std::to_string(rank)},
      {"model", model.name ? model.name : ""},
      {"optimizer", describeOptimizer(options.optimizer)},
      {"optimizer_steps", counts},
      {"data_position", std::to_string(nextPosition)}};
  CheckpointFile file = writeCheckpointFile(stepDir, rank, tensors, metadata);

  // Rank 0 writes the manifest once every rank's file is on disk.
  std::vector<std::string> all = backend->gather(
      std::to_string(file.bytes) + " " + std::to_string(file.hash), 0);
  if (rank != 0)
    return;
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
  for (int r = 0; r < static_cast<int>(all.size()); ++r) {
    CheckpointFile entry;
    entry.rank = r;
    entry.name = "rank-" + std::to_string(r) + ".safetensors";
    unsigned long long bytes = 0, hash = 0;
    if (std::sscanf(all[r].c_str(), "%llu %llu", &bytes, &hash) != 2)
      throw Error("internal error: bad checkpoint report from rank " +
                  std::to_string(r));
    entry.bytes = bytes;
    entry.hash = hash;
    manifest.files.push_back(entry);
  }
  // Test hook: die between the tensors and the manifest.
  const char *crash = std::getenv("PW_TEST_CRASH_BEFORE_MANIFEST");
  if (crash && std::atoll(crash) == step) {
    report(backend.get(), "PW_TEST_CRASH_BEFORE_MANIFEST: exiting before "
                          "the manifest of step " +
                              std::to_string(step));
    _exit(ExitFailure);
  }
  writeCheckpointManifest(stepDir, manifest);
  printLine("checkpoint: " + stepDir);
}

std::vector<HostTensor>
Driver::combineReplicaOutputs(const Executor &executor) {
  // Each replica's last-stage rank holds its rows (concatenated outputs) or
  // its partial sums; the output rank (replica 0's) combines them in
  // replica order.
  std::string bytes;
  if (executor.holdsOutputs())
    for (const HostTensor &output : executor.outputs())
      bytes.append(static_cast<const char *>(output.data()), output.bytes());
  int root = outputRank(model);
  std::vector<std::string> parts = backend->gather(bytes, root);
  std::vector<HostTensor> combined;
  if (rank != root)
    return combined;
  int replicas = numReplicas(model);
  for (int o = 0; o < model.num_outputs; ++o)
    combined.emplace_back(model.outputs[o].dtype, shapeOf(model.outputs[o]));
  std::vector<int> holders = stageHolders(model, model.num_stages - 1);
  for (int k = 0; k < replicas; ++k) {
    const char *at = parts[holders[k]].data();
    for (int o = 0; o < model.num_outputs; ++o) {
      HostTensor &out = combined[o];
      if (model.output_combine[o] == PW_CONCAT_BATCH) {
        size_t part = out.bytes() / static_cast<size_t>(replicas);
        std::memcpy(static_cast<char *>(out.data()) + part * k, at + part * k,
                    part);
      } else {
        size_t count = static_cast<size_t>(out.size());
        for (size_t i = 0; i < count; ++i) {
          size_t width = dtypeSize(out.dtype);
          char *dst = static_cast<char *>(out.data()) + i * width;
          const char *src = at + i * width;
          switch (out.dtype) {
          case PW_F32:
            *reinterpret_cast<float *>(dst) +=
                *reinterpret_cast<const float *>(src);
            break;
          case PW_F64:
            *reinterpret_cast<double *>(dst) +=
                *reinterpret_cast<const double *>(src);
            break;
          case PW_I32:
            *reinterpret_cast<int32_t *>(dst) +=
                *reinterpret_cast<const int32_t *>(src);
            break;
          case PW_I64:
            *reinterpret_cast<int64_t *>(dst) +=
                *reinterpret_cast<const int64_t *>(src);
            break;
          default:
            *reinterpret_cast<int8_t *>(dst) +=
                *reinterpret_cast<const int8_t *>(src);
            break;
          }
        }
      }
      at += out.bytes();
    }
  }
  return combined;
}

int Driver::execute() {
  std::vector<void *> pointers(model.num_inputs, nullptr);
  for (int i = 0; i < model.num_inputs; ++i)
    if (used[i])
      pointers[i] = inputTensors[i].data();
  std::unique_ptr<Trace> trace;
  if (!options.traceFile.empty())
    trace = std::make_unique<Trace>();
  Executor executor(model, plan, *backend, pointers, trace.get(),
                    options.optimizer);
  if (training && startStep > 0)
    restoreState(executor);

  backend->barrier("the other ranks to start");
  if (trace)
    trace->start(backend->now());
  std::vector<double> times;
  for (int k = 1; k <= options.steps; ++k) {
    int64_t position = (dataPosition + k - 1) % dataBatches;
    int64_t step = startStep + k;
    setBatch(executor, position);
    if (k > 1)
      backend->barrier("the other ranks to start step " + std::to_string(k));
    double begin = backend->now();
    executor.runStep();
    // The step time is the longest any rank spent in it (each rank measures
    // from leaving the barrier to finishing its actions).
    double ms = (backend->now() - begin) * 1e3;
    backend->wait(backend->iallreduce(&ms, 1, PW_F64, ReduceOp::Max, {}),
                  "the other ranks to finish step " + std::to_string(k));
    times.push_back(ms);
    if (!training) {
      if (isOutputRank)
        printLine("step " + std::to_string(k) + ": " +
                  formatDouble("%.3f", ms) + " ms");
      continue;
    }
    // The global loss: the sum over replicas of each replica's sum over its
    // microbatches (the model's loss is written for the global batch).
    double loss = executor.loss();
    backend->wait(backend->iallreduce(&loss, 1, PW_F64, ReduceOp::Sum, {}),
                  "the losses of step " + std::to_string(step));
    double samples =
        ms > 0 ? static_cast<double>(globalBatch) / (ms * 1e-3) : 0;
    if (isOutputRank) {
      printLine("step " + std::to_string(step) + "  loss " +
                formatDouble("%.6g", loss) + "  time " +
                formatDouble("%.3f", ms) + " ms  samples/s " +
                formatDouble("%.1f", samples));
      if (logFile) {
        std::string line =
            "{\"step\": " + std::to_string(step) + ", \"loss\": " +
            (std::isfinite(loss) ? formatDouble("%.17g", loss) : "null") +
            ", \"time_ms\": " + formatDouble("%.6f", ms) +
            ", \"samples_per_s\": " + formatDouble("%.3f", samples) + "}\n";
        if (std::fputs(line.c_str(), logFile) < 0 || std::fflush(logFile) != 0)
          throw Error("cannot write --log-json '" + options.logJson + "'");
      }
    }
    if (!options.checkpointDir.empty() &&
        (k == options.steps ||
         (options.checkpointEvery > 0 && step % options.checkpointEvery == 0)))
      saveCheckpoint(executor, step, (position + 1) % dataBatches);
  }
  if (isOutputRank && times.size() > 1) {
    // Step 1 (warm-up: first touches, MPI connections) is left out.
    std::vector<double> timed(times.begin() + 1, times.end());
    double sum = 0;
    for (double t : timed)
      sum += t;
    std::sort(timed.begin(), timed.end());
    size_t n = timed.size();
    double median =
        n % 2 ? timed[n / 2] : 0.5 * (timed[n / 2 - 1] + timed[n / 2]);
    printLine("steps 2-" + std::to_string(times.size()) + ": mean " +
              formatDouble("%.3f", sum / double(n)) + " ms, median " +
              formatDouble("%.3f", median) + " ms, min " +
              formatDouble("%.3f", timed.front()) + " ms");
  }

  if (options.printMemory && training) {
    // Every rank's measured peak, printed by rank 0 in rank order.
    const pw_rank_program &held = model.ranks[rank];
    std::string stagesText, perMicrobatch;
    for (int k = 0; k < held.num_stages; ++k) {
      int s = held.stages[k];
      stagesText += (k ? ", " : "") + std::to_string(s);
      perMicrobatch += (k ? ", stage " : "stage ") + std::to_string(s) + " " +
                       std::to_string(executor.activationBytes(s));
    }
    std::vector<std::string> all =
        backend->gather("memory: rank " + std::to_string(rank) + " stages [" +
                            stagesText + "]: peak activation memory " +
                            std::to_string(executor.peakActivationBytes()) +
                            " bytes (per microbatch: " + perMicrobatch + ")",
                        0);
    if (rank == 0)
      for (const std::string &line : all)
        printLine(line);
  }
  if (trace) {
    std::vector<std::string> all = backend->gather(trace->eventsJson(rank), 0);
    if (rank == 0) {
      writeChromeTrace(options.traceFile, all);
      printLine("trace: " + options.traceFile);
    }
  }
  if (numReplicas(model) > 1) {
    std::vector<HostTensor> combined = combineReplicaOutputs(executor);
    return isOutputRank ? finishOutputs(combined) : ExitOk;
  }
  return isOutputRank ? finishOutputs(executor.outputs()) : ExitOk;
}

int Driver::finishOutputs(const std::vector<HostTensor> &outputs) {
  int status = ExitOk;
  for (int o = 0; o < model.num_outputs; ++o) {
    const HostTensor &output = outputs[o];
    std::string name = outputName(model, o);
    size_t count = static_cast<size_t>(output.size());
    char hash[32];
    std::snprintf(hash, sizeof(hash), "0x%016" PRIx64,
                  fnv1a(output.data(), output.bytes()));
    printLine(
        "output " + name + ": shape " + shapeString(output.shape) + ", sum " +
        formatDouble("%.6e", elementSum(output.dtype, output.data(), count)) +
        ", checksum " + hash);
    if (!options.outDir.empty()) {
      std::string file = name;
      for (char &c : file)
        if (c == '/' || c == '\\' || c == '\0')
          c = '_';
      writeNpy(options.outDir + "/" + file + ".npy", output);
    }
    auto it = expected.find(o);
    if (it == expected.end())
      continue;
    const HostTensor &want = it->second;
    size_t bad = 0, first = 0;
    double worst = 0;
    auto value = [](const HostTensor &t, size_t i) {
      return elementSum(
          t.dtype, static_cast<const char *>(t.data()) + i * dtypeSize(t.dtype),
          1);
    };
    for (size_t i = 0; i < count; ++i) {
      double got = value(output, i), ref = value(want, i);
      if (std::isnan(got) && std::isnan(ref))
        continue;
      double diff = std::fabs(got - ref);
      if (!(diff <= options.tolerance * std::max(1.0, std::fabs(ref)))) {
        if (bad++ == 0)
          first = i;
      }
      if (diff > worst || std::isnan(diff))
        worst = diff;
    }
    if (bad == 0) {
      printLine("expect " + name + ": ok (" + std::to_string(count) +
                " values, max abs diff " + formatDouble("%.3e", worst) + ")");
      continue;
    }
    std::vector<int64_t> index(output.shape.size());
    size_t rest = first;
    for (size_t d = index.size(); d-- > 0;) {
      index[d] = static_cast<int64_t>(rest % output.shape[d]);
      rest /= output.shape[d];
    }
    report(backend.get(),
           "expect " + name + ": MISMATCH: " + std::to_string(bad) + " of " +
               std::to_string(count) + " values differ by more than " +
               formatDouble("%g", options.tolerance) +
               " (relative); first at " + shapeString(index) + ": got " +
               formatDouble("%.9g", value(output, first)) + ", expected " +
               formatDouble("%.9g", value(want, first)));
    status = ExitFailure;
  }
  return status;
}

} // namespace

} // namespace pipewave::runtime

extern "C" int pw_runtime_main(int argc, char **argv, const pw_model *model) {
  using namespace pipewave::runtime;
  if (!model) {
    report(nullptr, "no model (pw_get_model() returned NULL)");
    return ExitBadModel;
  }
  Options options;
  try {
    options = parseOptions(argc, argv);
  } catch (const Error &error) {
    report(nullptr, std::string(error.what()) + " (see --help)");
    return error.exitCode;
  }
  try {
    validateModel(*model);
  } catch (const Error &error) {
    report(nullptr, error.what());
    return error.exitCode;
  }
  if (options.help) {
    std::fputs(
        usage(baseName(argc > 0 ? argv[0] : nullptr).c_str(), *model).c_str(),
        stdout);
    return ExitOk;
  }
  if (options.printRanks) {
    printLine(std::to_string(model->num_ranks));
    return ExitOk;
  }
  if (options.printPlan) {
    try {
      PlanOptions planOptions;
      planOptions.spareSlots = options.spareSlots;
      for (int r = 0; r < model->num_ranks; ++r)
        std::fputs(describePlan(planRank(*model, r, planOptions)).c_str(),
                   stdout);
    } catch (const Error &error) {
      report(nullptr, error.what());
      return error.exitCode;
    }
    return ExitOk;
  }
  try {
    Driver driver(*model, std::move(options));
    return driver.run(&argc, &argv);
  } catch (const Error &error) {
    report(nullptr, error.what());
    return error.exitCode;
  } catch (const std::exception &error) {
    report(nullptr, error.what());
    return ExitFailure;
  }
}
