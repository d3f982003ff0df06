//===- Main.cpp - pw_runtime_main: the driver of a compiled model ---------===//
//
// Part of the pipewave project.
//
// 1. Parse the command line (no MPI yet: --help, --print-ranks and
//    --print-plan work without a launcher). Errors here and in step 2's
//    model check are the same on every rank: the launcher's rank 0 prints
//    them (and --help, --print-ranks, --print-plan), the others only exit.
// 2. Validate the model, pick the backend (MPI under a launcher, else the
//    local one; PW_BACKEND forces one; a binary compiled with --target
//    cuda uses NCCL under a launcher and the loopback backend on its own; a
//    torchrun-style environment of several ranks without MPI on the CPU is
//    an error, see LaunchEnv.h) and check the number of ranks: every rank
//    detects a mismatch itself and exits 2; rank 0 says so.
// 3. Each rank picks its device (the model's: PW_DEVICE for CPU code, the
//    GPU of its local rank for CUDA code), checks every input it can (all
//    .npy headers, the whole --init header), loads what its stages read and
//    plans its buffers; the ranks then agree, so an error anywhere stops all
//    of them (exit 2) before any schedule message is sent. Rank 0 prints
//    each distinct error once: without a rank when every rank has it, else
//    with the ranks that do.
//    Training: --resume loads the rank's part of the latest complete
//    checkpoint here too, so a bad checkpoint stops every rank cleanly.
// 4. Run the steps; any failure now aborts the whole job (exit 1). Each
//    step reads the next global batch of the data files. Training prints
//    the loss per step (and --log-json), and writes checkpoints. Every step
//    line but the last ends with the time the remaining steps will take.
// 5. The rank holding the last stage (of replica 0) prints step times and
//    output checksums, writes --out and checks --expect; rank 0 writes
//    --trace.
// Data loading, checkpoints and outputs are in the Driver*.cpp files (see
// Driver.h).
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "TestHooks.h"

#include "pipewave-runtime/BlasCore.h"
#include "pipewave-runtime/CudaDeviceAccess.h"
#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/HostMemory.h"
#include "pipewave-runtime/Json.h"
#include "pipewave-runtime/LaunchEnv.h"
#include "pipewave-runtime/ModelCheck.h"
#include "pipewave-runtime/NcclBackend.h"
#include "pipewave-runtime/Signals.h"
#include "pipewave-runtime/Threads.h"
#include "pipewave-runtime/Trace.h"
#include "pipewave-runtime/WaitPolicy.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

// The stage code's matmul helpers (lib/Target/CPU/Kernels.c), in binaries
// whose matmuls call them.
extern "C" int pw_small_gemm_active(void) __attribute__((weak));

namespace pipewave::runtime {

namespace {

/// Prints `message` once per job: an error every rank decides the same way
/// before any communication (the command line, the model) is printed by the
/// launcher's rank 0 only, or by a process started without a launcher.
void reportOnce(const std::string &message) {
  if (launcherRank() <= 0)
    report(nullptr, message);
}

/// Prints the failures of the ranks (indexed by rank, empty for none), each
/// distinct message once in the order of the lowest rank that has it:
/// without a rank when every rank has it, else with the ranks that do.
void reportFailures(const std::vector<std::string> &failures) {
  std::vector<std::pair<std::string, std::vector<int>>> distinct;
  for (size_t r = 0; r < failures.size(); ++r) {
    if (failures[r].empty())
      continue;
    auto it = std::find_if(distinct.begin(), distinct.end(), [&](auto &entry) {
      return entry.first == failures[r];
    });
    if (it == distinct.end())
      it = distinct.insert(it, {failures[r], {}});
    it->second.push_back(static_cast<int>(r));
  }
  std::fflush(stdout);
  for (const auto &[message, ranks] : distinct) {
    std::string who;
    if (ranks.size() != failures.size()) {
      who = ranks.size() == 1 ? "rank " : "ranks ";
      for (size_t k = 0; k < ranks.size(); ++k)
        who += (k ? "," : "") + std::to_string(ranks[k]);
      who += ": ";
    }
    std::fprintf(stderr, "pipewave: %s%s\n", who.c_str(), message.c_str());
  }
  std::fflush(stderr);
}

/// The mean step time (ms) the ETA extrapolates: step 1, a warm-up, is
/// left out once there are others. Running sums, so that each step's line
/// costs the same however many steps came before it.
struct StepMean {
  double first = 0, rest = 0;
  size_t count = 0;
  void add(double ms) {
    if (count++ == 0)
      first = ms;
    else
      rest += ms;
  }
  double ms() const { return count > 1 ? rest / double(count - 1) : first; }
};

/// "  eta 250 ms", "  eta 12.3 s", "  eta 4m05s" or "  eta 2h07m": the time
/// the steps after `done` of `total` will take at `mean`; "" after the last
/// step.
std::string formatEta(const StepMean &mean, int done, int total) {
  if (done >= total || mean.count == 0)
    return "";
  double seconds = mean.ms() * 1e-3 * (total - done);
  char text[64];
  long whole = std::lround(seconds);
  if (seconds < 1)
    std::snprintf(text, sizeof(text), "  eta %.0f ms", seconds * 1e3);
  else if (seconds < 60)
    std::snprintf(text, sizeof(text), "  eta %.1f s", seconds);
  else if (whole < 3600)
    std::snprintf(text, sizeof(text), "  eta %ldm%02lds", whole / 60,
                  whole % 60);
  else
    std::snprintf(text, sizeof(text), "  eta %ldh%02ldm", whole / 3600,
                  whole / 60 % 60);
  return text;
}

std::string baseName(const char *path) {
  std::string text = path ? path : "model";
  size_t slash = text.find_last_of('/');
  return slash == std::string::npos ? text : text.substr(slash + 1);
}

/// True when a launcher or a torchrun-style environment makes this process
/// one of several.
bool oneOfSeveralProcesses() {
  if (startedByLauncher())
    return true;
  LaunchEnv launch = launchEnvFromProcess();
  return launch.source == LaunchSource::Torchrun && launch.worldSize > 1;
}

/// A transport that reads and writes buffers from the host (local, MPI)
/// cannot move CUDA device memory (pipewave does not assume a CUDA-aware
/// MPI); NCCL needs the CUDA device's events.
void checkBackendReachesDevice(const Backend &backend, Device &device) {
  bool cuda = dynamic_cast<CudaDeviceAccess *>(&device) != nullptr;
  if (backend.name() == "nccl" && !cuda)
    throw Error("PW_BACKEND=nccl needs the CUDA device of a binary compiled "
                "with --target cuda, not the '" +
                    device.name() + "' device",
                ExitUsage);
  if (cuda && (backend.name() == "local" || backend.name() == "mpi"))
    throw Error("the '" + backend.name() +
                    "' backend moves host memory, but this binary's "
                    "buffers live on the GPU: leave PW_BACKEND unset (NCCL "
                    "under a launcher, the loopback backend in one process) "
                    "or set it to 'nccl' or 'loopback'",
                ExitUsage);
}

} // namespace

std::unique_ptr<Backend> Driver::chooseBackend(int *argc, char ***argv) {
  const char *forced = std::getenv("PW_BACKEND");
  std::string choice = forced ? forced : "";
  // No MPI launcher: a torchrun-style environment may still say that this
  // process is one of several. (Slurm's variables alone do not: a batch
  // script sees its allocation's task count.)
  LaunchEnv launch = choice.empty() && !startedByLauncher()
                         ? launchEnvFromProcess()
                         : LaunchEnv();
  bool torchrun =
      launch.source == LaunchSource::Torchrun && launch.worldSize > 1;
  // GPUs of several processes talk through NCCL: the default of a binary
  // compiled with --target cuda under a launcher or torchrun.
  if (choice == "nccl" || (choice.empty() && model.device == PW_DEVICE_CUDA &&
                           (startedByLauncher() || torchrun)))
    return createNcclBackend(model, argc, argv, options.timeout);
  if (choice == "local")
    return createLocalBackend();
  if (choice == "mpi" || (choice.empty() && startedByLauncher()))
    return createMpiBackend(argc, argv);
  if (!choice.empty())
    usageError("PW_BACKEND must be 'local', 'mpi', 'loopback' or 'nccl', "
               "not '" +
               choice + "'");
  if (torchrun)
    usageError(std::string("the launch environment (") +
               launchSourceName(launch.source) + ") makes this process rank " +
               std::to_string(launch.rank) + " of " +
               std::to_string(launch.worldSize) +
               ", but without an MPI launcher this runtime has no backend "
               "for several processes on the CPU; start it with pipewave-run "
               "-n " +
               std::to_string(launch.worldSize) +
               " or mpirun (GPUs: PW_BACKEND=nccl)");
  return createLocalBackend();
}

int Driver::run(int *argc, char ***argv) {
  if (!backend)
    backend = chooseBackend(argc, argv);
  backend->setTimeout(options.timeout);
  rank = backend->rank();
  // Every rank sees the mismatch; rank 0 says so.
  if (backend->size() != model.num_ranks) {
    if (rank != 0)
      return ExitUsage;
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
  // Rank 0 prints the failures of all ranks, each message once.
  std::vector<std::string> failures = backend->gather(failure, 0);
  if (!backend->agree(failure.empty())) {
    if (rank == 0)
      reportFailures(failures);
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
  device = createDeviceForModel(model, localRankFromEnvironment());
  checkBackendReachesDevice(*backend, *device);
  chooseGemmThreads();
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
  ExecPlanOptions execOptions;
  execOptions.spareSlots = options.spareSlots;
  execOptions.earlySends = !options.sendsInListOrder;
  plan = planExecution(model, rank, execOptions);
}

int Driver::execute() {
  std::vector<void *> pointers(model.num_inputs, nullptr);
  for (int i = 0; i < model.num_inputs; ++i)
    if (used[i])
      pointers[i] = inputTensors[i].data();
  std::unique_ptr<Trace> trace;
  if (!options.traceFile.empty())
    trace = std::make_unique<Trace>();
  // The data inputs' host tensors stay unchanged while steps slice them:
  // the device may upload from them directly (the counters are rewritten
  // each step).
  struct HostRegistration {
    Device &device;
    std::vector<const void *> ranges;
    ~HostRegistration() {
      for (const void *range : ranges)
        device.unregisterHost(range);
    }
  } registration{*device, {}};
  for (int i = 0; i < model.num_inputs; ++i)
    if (used[i] && isBatchInput(model, i) && inputTensors[i].data()) {
      device->registerHost(inputTensors[i].data(), inputTensors[i].bytes());
      registration.ranges.push_back(inputTensors[i].data());
    }
  Executor executor(model, plan, *backend, pointers, trace.get(),
                    options.optimizer, device.get());
  if (training && startStep > 0)
    restoreState(executor);
  if (training)
    executor.setNonfinitePolicy(options.onNonfinite);
  if (options.cudaGraph) {
    std::string why;
    if (!executor.useGraphs(why))
      report(backend.get(),
             "note: --cuda-graph: " + why + "; running without a graph");
  }

  catchStopSignals();
  backend->barrier("the other ranks to start");
  if (trace)
    trace->start(backend->now());
  std::vector<double> times;
  StepMean mean;
  int64_t faultsBefore = 0;
  for (int k = 1; k <= options.steps; ++k) {
    if (k == 2)
      faultsBefore = minorPageFaults();
    int64_t position = (dataPosition + k - 1) % dataBatches;
    int64_t step = startStep + k;
    setBatch(executor, position, step);
    if (k < options.steps)
      prefetchBatch(executor, (position + 1) % dataBatches);
    if (k > 1)
      backend->barrier("the other ranks to start step " + std::to_string(k));
    double begin = backend->now();
    testhooks::beforeStep(backend->rank(), k);
    executor.runStep();
    // The step time is the longest any rank spent in it (each rank measures
    // from leaving the barrier to finishing its actions); with it, whether
    // a rank was asked to stop (Signals.h).
    double agreed[2] = {(backend->now() - begin) * 1e3,
                        static_cast<double>(pendingStopSignal())};
    backend->wait(backend->iallreduce(agreed, 2, PW_F64, ReduceOp::Max, {}),
                  "the other ranks to finish step " + std::to_string(k));
    double ms = agreed[0];
    int stopSignal = static_cast<int>(agreed[1]);
    times.push_back(ms);
    mean.add(ms);
    if (!training) {
      if (isOutputRank)
        printStepLine("step " + std::to_string(k) + ": " +
                      formatDouble("%.3f", ms) + " ms" +
                      formatEta(mean, k, options.steps));
      if (stopSignal && k < options.steps)
        return stopOnSignal(executor, step, stopSignal, false, 0);
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
      printStepLine("step " + std::to_string(step) + "  loss " +
                    formatDouble("%.6g", loss) + "  time " +
                    formatDouble("%.3f", ms) + " ms  samples/s " +
                    formatDouble("%.1f", samples) +
                    formatEta(mean, k, options.steps));
      if (logFile)
        logStep(step, loss, ms, samples);
    }
    if (executor.lastStepNonfinite() && !reportNonfinite(executor, step))
      return ExitFailure;
    bool saved = !options.checkpointDir.empty() &&
                 (k == options.steps || (options.checkpointEvery > 0 &&
                                         step % options.checkpointEvery == 0));
    if (saved && !saveCheckpoint(executor, step, (position + 1) % dataBatches))
      return ExitFailure;
    if (stopSignal && k < options.steps)
      return stopOnSignal(executor, step, stopSignal, saved,
                          (position + 1) % dataBatches);
  }
  if (options.steps > 1)
    faultsPerStep = static_cast<double>(minorPageFaults() - faultsBefore) /
                    static_cast<double>(options.steps - 1);
  if (isOutputRank && times.size() > 1)
    printSummary(times);
  if (options.printMemory && training)
    printMemory(executor);
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

void Driver::chooseGemmThreads() {
  // The ranks sharing this host's CPUs: every rank of a loopback run (one
  // process), else this host's ranks as the launcher says.
  int localRanks = 1;
  if (backend->name() == "loopback")
    localRanks = backend->size();
  else if (backend->size() > 1)
    localRanks = launchEnvFromProcess().localWorldSize;
  ThreadChoice choice = chooseThreads(
      options.threads, availableCpus(), localRanks,
      std::getenv("OPENBLAS_NUM_THREADS"), std::getenv("OMP_NUM_THREADS"));
  // A rank whose threads have cores to themselves polls for messages back
  // to back; one that shares them yields (WaitPolicy.h).
  backend->setWaitPolicy(
      chooseWaitPolicy(options.wait, onlineCpus(), localRanks, choice.threads,
                       std::getenv("OMPI_MCA_mpi_oversubscribe")));
  if (choice.threads > 0 && setGemmThreads(choice.threads))
    gemmThreads = std::to_string(choice.threads) + " (" + choice.reason + ")";
  else if (choice.threads > 0)
    gemmThreads = "none (no OpenBLAS in this binary)";
  else
    gemmThreads = "as " + choice.reason + " says";
  std::string kernels = gemmKernels(std::getenv("OPENBLAS_CORETYPE"),
                                    std::getenv(kOpenBlasOwnCoreVariable));
  if (!kernels.empty())
    gemmThreads += ", " + kernels;
  if (!kernels.empty() && pw_small_gemm_active && pw_small_gemm_active())
    gemmThreads += ", few-row products on pipewave's AVX-512 kernel, "
                   "larger ones on its packed kernel";
}

} // namespace pipewave::runtime

extern "C" int pw_runtime_main(int argc, char **argv, const pw_model *model) {
  using namespace pipewave::runtime;
  // Before anything runs: OpenBLAS's kernels can be chosen only by
  // starting again (BlasCore.h).
  restartForBetterBlasKernels(argv);
  // A launcher may give the ranks a terminal (Open MPI's mpirun does: a
  // pty), on which stdout is line-buffered: every step line would then wake
  // the launcher, which takes a core from a rank for tens of microseconds
  // at a step boundary. Fully buffered, step lines leave at most every half
  // second (printStepLine); every other line is flushed at once.
  static char stdoutBuffer[1 << 16];
  std::setvbuf(stdout, stdoutBuffer, _IOFBF, sizeof(stdoutBuffer));
  if (!model) {
    report(nullptr, "no model (pw_get_model() returned NULL)");
    return ExitBadModel;
  }
  keepFreedHostMemory();
  Options options;
  try {
    options = parseOptions(argc, argv);
  } catch (const Error &error) {
    reportOnce(std::string(error.what()) + " (see --help)");
    return error.exitCode;
  }
  try {
    validateModel(*model);
  } catch (const Error &error) {
    reportOnce(error.what());
    return error.exitCode;
  }
  // What every rank would print the same: once per job.
  bool printer = launcherRank() <= 0;
  if (options.help) {
    if (!printer)
      return ExitOk;
    std::fputs(
        usage(baseName(argc > 0 ? argv[0] : nullptr).c_str(), *model).c_str(),
        stdout);
    return ExitOk;
  }
  if (options.printRanks) {
    if (printer)
      printLine(std::to_string(model->num_ranks));
    return ExitOk;
  }
  if (options.printPlan) {
    if (!printer)
      return ExitOk;
    try {
      ExecPlanOptions execOptions;
      execOptions.spareSlots = options.spareSlots;
      execOptions.earlySends = !options.sendsInListOrder;
      for (int r = 0; r < model->num_ranks; ++r)
        std::fputs(
            describeExecPlan(planExecution(*model, r, execOptions)).c_str(),
            stdout);
    } catch (const Error &error) {
      reportOnce(error.what());
      return error.exitCode;
    }
    return ExitOk;
  }
  try {
    // Every rank in one process: asked for, or a GPU binary started on its
    // own (its ranks share the one GPU; NCCL allows one rank per GPU).
    const char *backend = std::getenv("PW_BACKEND");
    std::string choice = backend ? backend : "";
    if (choice == "loopback" ||
        (choice.empty() && model->device == PW_DEVICE_CUDA &&
         !oneOfSeveralProcesses()))
      return runLoopback(*model, options);
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
