//===- Driver.h - The driver behind pw_runtime_main -------------*- C++ -*-===//
//
// Part of the pipewave project.
//
// Private to the runtime library. One Driver runs one rank of a compiled
// model (see Main.cpp for the sequence). Its jobs live in separate files:
//   Main.cpp            pw_runtime_main, start-up, the step loop
//   DriverData.cpp      data files and parameter values (--data, --init)
//   DriverCheckpoint.cpp  writing checkpoints and resuming from one (the
//                       file format itself is Checkpoint.cpp's)
//   DriverOutputs.cpp   --expect, combining replicas' outputs, --out and
//                       the output lines
//   DriverLoopback.cpp  every rank in one process (PW_BACKEND=loopback)
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_LIB_DRIVER_H
#define PIPEWAVE_RUNTIME_LIB_DRIVER_H

#include "pipewave-runtime/Backend.h"
#include "pipewave-runtime/Checkpoint.h"
#include "pipewave-runtime/Device.h"
#include "pipewave-runtime/ExecPlan.h"
#include "pipewave-runtime/Executor.h"
#include "pipewave-runtime/Options.h"
#include "pipewave-runtime/Tensor.h"
#include "pipewave-runtime/model.h"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace pipewave::runtime {

/// Prints "pipewave: [rank R: ]message" on stderr (the rank when `backend`
/// has more than one).
void report(const Backend *backend, const std::string &message);

/// Prints a line on stdout at once (mpirun forwards whole lines).
void printLine(const std::string &line);
/// Prints a step's line, flushing stdout at most every half second (the
/// other lines flush it): under a launcher every flush wakes the launcher
/// to forward the line, which takes a core from a rank for up to tens of
/// microseconds in the middle of the next step.
void printStepLine(const std::string &line);

/// snprintf of one double.
std::string formatDouble(const char *format, double value);

/// Runs every rank of `model` in this process on the loopback backend
/// (PW_BACKEND=loopback; DriverLoopback.cpp) and returns the exit code.
int runLoopback(const pw_model &model, const Options &options);

class Driver {
public:
  /// `backend`: the rank's backend; nullptr: run() picks one from the
  /// environment.
  Driver(const pw_model &model, Options options,
         std::unique_ptr<Backend> backend = nullptr)
      : model(model), options(std::move(options)), backend(std::move(backend)) {
  }
  ~Driver() {
    if (logFile)
      std::fclose(logFile);
  }

  int run(int *argc, char ***argv);

private:
  const pw_model &model;
  Options options;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Device> device;
  int rank = 0;
  bool isOutputRank = false;
  bool training = false;
  std::vector<HostTensor> inputTensors;
  std::vector<bool> used;
  std::map<int, HostTensor> expected;
  ExecPlan plan;
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
  /// Minor page faults of this rank per step after the first (-1: one step).
  double faultsPerStep = -1;
  /// The GEMM threads of this rank and why (Threads.h), for --print-memory.
  std::string gemmThreads;

  // Main.cpp
  std::unique_ptr<Backend> chooseBackend(int *argc, char ***argv);
  void prepare();
  int execute();
  void logStep(int64_t step, double loss, double ms, double samples);
  void printSummary(const std::vector<double> &times);
  /// Sets this rank's GEMM threads (Threads.h) into gemmThreads, and how
  /// it waits for messages (WaitPolicy.h).
  void chooseGemmThreads();
  void printMemory(const Executor &executor);

  // DriverData.cpp
  void loadData();
  void loadParameters();
  /// The global batch at `position` of the data files and, for a model
  /// with dropout, the counter of step `step`.
  void setBatch(Executor &executor, int64_t position, int64_t step);
  /// Announces batch `position` for the step after the next
  /// (Executor::prefetchInput).
  void prefetchBatch(Executor &executor, int64_t position);
  /// Global batch `position` of data input `input` (host memory).
  const void *batchOf(int input, int64_t position) const;

  // DriverCheckpoint.cpp
  void resume();
  /// Reads a tensor of the checkpoint (name, dtype, shape, destination,
  /// what it is for the error) or throws.
  using TensorReader = std::function<void(const std::string &, int32_t,
                                          const std::vector<int64_t> &, void *,
                                          const std::string &)>;
  /// Reads the rank's parameters into inputTensors and their optimizer
  /// state into resumedState.
  void readParametersAndState(const TensorReader &readTensor);
  /// The step, data position and rank 0's message of a resumed checkpoint.
  void finishResume(const std::string &stepDir,
                    const CheckpointManifest &manifest);
  // DriverRelayout.cpp
  /// Resuming a checkpoint of other stages or ranks: reads this rank's
  /// parameters and optimizer state by name from every rank file;
  /// `refuse(message)` throws.
  void
  resumeAcrossLayouts(const std::string &stepDir,
                      const CheckpointManifest &manifest,
                      const std::function<void(const std::string &)> &refuse);
  void restoreState(Executor &executor);
  /// Collective. False (rank 0 has said why) when a rank could not write
  /// its file or rank 0 the manifest: the run stops.
  bool saveCheckpoint(Executor &executor, int64_t step, int64_t nextPosition);
  /// Rank 0: "" when every shared parameter's copies in `reports` have one
  /// hash, else the problem.
  std::string checkCopies(const std::vector<std::string> &reports);
  /// Rank 0: the manifest of the rank files `reports` describe.
  void writeManifest(const std::string &stepDir, int64_t step,
                     int64_t nextPosition,
                     const std::vector<std::string> &reports);

  // DriverStops.cpp
  /// Collective: every rank flushes stdout, then waits for the others.
  void flushStepLines();
  /// After a step the ranks found a non-finite value in (collective): rank
  /// 0 says what and where; true to go on (--on-nonfinite skip).
  bool reportNonfinite(const Executor &executor, int64_t step);

  /// After step `step` the ranks agreed a stop signal arrived: writes a
  /// checkpoint of it with --checkpoint-on-signal (unless `saved`), rank 0
  /// says so; returns 128 + `signo`.
  int stopOnSignal(Executor &executor, int64_t step, int signo, bool saved,
                   int64_t nextPosition);

  // DriverOutputs.cpp
  void prepareOutputs();
  std::vector<HostTensor> combineReplicaOutputs(const Executor &executor);
  int finishOutputs(const std::vector<HostTensor> &outputs);
};

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_LIB_DRIVER_H
