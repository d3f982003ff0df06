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
// 4. Run the steps; any failure now aborts the whole job (exit 1).
// 5. The rank holding the last stage prints step times and output
//    checksums, writes --out and checks --expect; rank 0 writes --trace.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Backend.h"
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
#include <map>
#include <memory>
#include <set>

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

  int run(int *argc, char ***argv);

private:
  const pw_model &model;
  Options options;
  std::unique_ptr<Backend> backend;
  int rank = 0;
  bool isOutputRank = false;
  std::vector<HostTensor> inputTensors;
  std::vector<bool> used;
  std::map<int, HostTensor> expected;
  RankPlan plan;

  std::unique_ptr<Backend> chooseBackend(int *argc, char ***argv);
  void prepare();
  void loadData();
  void loadParameters();
  void prepareOutputs();
  int execute();
  int finishOutputs(const Executor &executor);
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
  prepareOutputs();
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
                 ": the model has no data input '" + name +
                 "' (data inputs: " + (dataNames.empty() ? "none" : dataNames) +
                 ")");
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
    usageError("missing data input " + missing + " (give each with --data NAME=FILE.npy; see --help)");

  // Every rank checks every file's header, so all report the same error.
  for (const auto &[index, file] : files) {
    const pw_tensor_info &input = model.inputs[index];
    NpyHeader header = readNpyHeader(file);
    std::vector<int64_t> expected = shapeOf(input);
    if (header.dtype != input.dtype || header.shape != expected) {
      std::vector<int64_t> micro =
          microbatchShape(expected, model.num_microbatches, inputName(model, index));
      usageError("data input '" + inputName(model, index) + "': '" + file +
                 "' holds " + dtypeName(header.dtype) + " " +
                 shapeString(header.shape) + " but the model expects " +
                 dtypeName(input.dtype) + " " + shapeString(expected) +
                 " (the global batch: " +
                 std::to_string(model.num_microbatches) +
                 " microbatches of " + shapeString(micro) + ")");
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
                 "' for parameter '" + name + "' (" +
                 dtypeName(info.dtype) + " " + shapeString(shapeOf(info)) +
                 ")");
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

int Driver::execute() {
  std::vector<const void *> pointers(model.num_inputs, nullptr);
  for (int i = 0; i < model.num_inputs; ++i)
    if (used[i])
      pointers[i] = inputTensors[i].data();
  std::unique_ptr<Trace> trace;
  if (!options.traceFile.empty())
    trace = std::make_unique<Trace>();
  Executor executor(model, plan, *backend, pointers, trace.get());

  backend->barrier("the other ranks to start");
  if (trace)
    trace->start(backend->now());
  std::vector<double> times;
  for (int k = 1; k <= options.steps; ++k) {
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
    if (isOutputRank)
      printLine("step " + std::to_string(k) + ": " +
                formatDouble("%.3f", ms) + " ms");
  }
  if (isOutputRank && times.size() > 1) {
    double sum = 0, best = times[1];
    for (size_t k = 1; k < times.size(); ++k) {
      sum += times[k];
      best = std::min(best, times[k]);
    }
    printLine("steps 2-" + std::to_string(times.size()) + ": mean " +
              formatDouble("%.3f", sum / double(times.size() - 1)) +
              " ms, min " + formatDouble("%.3f", best) + " ms");
  }

  if (trace) {
    std::vector<std::string> all = backend->gather(trace->eventsJson(rank), 0);
    if (rank == 0) {
      writeChromeTrace(options.traceFile, all);
      printLine("trace: " + options.traceFile);
    }
  }
  return isOutputRank ? finishOutputs(executor) : ExitOk;
}

int Driver::finishOutputs(const Executor &executor) {
  int status = ExitOk;
  for (int o = 0; o < model.num_outputs; ++o) {
    const HostTensor &output = executor.outputs()[o];
    std::string name = outputName(model, o);
    size_t count = static_cast<size_t>(output.size());
    char hash[32];
    std::snprintf(hash, sizeof(hash), "0x%016" PRIx64,
                  fnv1a(output.data(), output.bytes()));
    printLine("output " + name + ": shape " + shapeString(output.shape) +
              ", sum " +
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
      return elementSum(t.dtype,
                        static_cast<const char *>(t.data()) + i * dtypeSize(t.dtype),
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
    std::fputs(usage(baseName(argc > 0 ? argv[0] : nullptr).c_str(), *model)
                   .c_str(),
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
