//===- DriverReport.cpp - What the driver prints ---------------------------==//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The driver's messages and reports: errors with the rank that has them,
// step lines (flushed at most every half second), --log-json records, the
// step-time summary and --print-memory's per-rank lines (Driver.h).
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/HostBufferPool.h"
#include "pipewave-runtime/Json.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace pipewave::runtime {

void report(const Backend *backend, const std::string &message) {
  std::fflush(stdout);
  if (backend && backend->size() > 1)
    std::fprintf(stderr, "pipewave: rank %d: %s\n", backend->rank(),
                 message.c_str());
  else
    std::fprintf(stderr, "pipewave: %s\n", message.c_str());
  std::fflush(stderr);
}

void printLine(const std::string &line) {
  std::fputs((line + "\n").c_str(), stdout);
  std::fflush(stdout);
}

void printStepLine(const std::string &line) {
  static auto lastFlush = std::chrono::steady_clock::time_point();
  std::fputs((line + "\n").c_str(), stdout);
  auto now = std::chrono::steady_clock::now();
  if (now - lastFlush >= std::chrono::milliseconds(500)) {
    std::fflush(stdout);
    lastFlush = now;
  }
}

std::string formatDouble(const char *format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

void Driver::logStep(int64_t step, double loss, double ms, double samples) {
  // Numbers as the one JSON writer prints them: the shortest text that reads
  // back as the same double; null for a non-finite loss.
  std::string line = "{\"step\": " + std::to_string(step) +
                     ", \"loss\": " + jsonNumber(loss) +
                     ", \"time_ms\": " + jsonNumber(ms) +
                     ", \"samples_per_s\": " + jsonNumber(samples) + "}\n";
  if (std::fputs(line.c_str(), logFile) < 0 || std::fflush(logFile) != 0)
    throw Error("cannot write --log-json '" + options.logJson + "'");
}

void Driver::printSummary(const std::vector<double> &times) {
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

void Driver::printMemory(const Executor &executor) {
  // Every rank's measured peak, printed by rank 0 in rank order.
  const pw_rank_program &held = model.ranks[rank];
  std::string stagesText, perMicrobatch;
  for (int k = 0; k < held.num_stages; ++k) {
    int s = held.stages[k];
    stagesText += (k ? ", " : "") + std::to_string(s);
    perMicrobatch += (k ? ", stage " : "stage ") + std::to_string(s) + " " +
                     std::to_string(executor.activationBytes(s));
  }
  // Each rank's line, printed by rank 0 in rank order.
  auto printByRank = [&](const std::string &line) {
    std::vector<std::string> all = backend->gather(line, 0);
    if (rank == 0)
      for (const std::string &each : all)
        printLine(each);
  };
  std::string who = "rank " + std::to_string(rank);
  printByRank("memory: " + who + " stages [" + stagesText +
              "]: peak activation memory " +
              std::to_string(executor.peakActivationBytes()) +
              " bytes (per microbatch: " + perMicrobatch + ")");
  printByRank("threads: " + who + ": GEMM threads " + gemmThreads);
  printByRank("waits: " + who + ": " + backend->waitingPolicy().description);
  // Updates run by the products of the gradients (pipe-fuse-updates).
  if (!executor.trainedParameters().empty())
    printByRank("updates: " + who + ": " +
                std::to_string(executor.fusedUpdatesLastStep()) + " of " +
                std::to_string(executor.trainedParameters().size()) +
                " parameter updates of the last step ran in the products "
                "of their gradients, " +
                std::to_string(executor.gradientsLeftLastStep()) +
                " of them without writing the gradient");
  // The buffer the stage functions keep their temporaries in (allocated
  // once; 0 when compiled with --no-workspace).
  printByRank("workspace: " + who + ": " +
              std::to_string(executor.workspaceBytes()) +
              " bytes for the temporaries of its stage functions");
  // Steady state: the minor page faults of this rank's thread per step after
  // the first (temporaries whose pages the C library returned to the system
  // fault in again at every call).
  if (faultsPerStep >= 0)
    printByRank("page faults: " + who + ": " +
                formatDouble("%.1f", faultsPerStep) +
                " minor faults per step after step 1");
  // The runtime's large buffers ask for transparent huge pages
  // (HostBufferPool.h); what the kernel granted, for the whole process.
  int64_t huge = hugePageBackedBytes();
  if (huge >= 0)
    printByRank("huge pages: " + who + ": " +
                formatDouble("%.1f", static_cast<double>(huge) / (1 << 20)) +
                " MiB of its process on transparent huge pages");
}

} // namespace pipewave::runtime
