//===- Simulate.cpp - sched-simulate: time a program with real costs ------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Costs the stage functions of the entry (pipewave/Analysis/StageCosts.h),
// runs the event simulator of lib/Simulator on every sched.program and
// reports the step time, the bubble and the memory; writes the Chrome trace
// and the SVG timeline on request.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Analysis/StageCosts.h"
#include "pipewave/Dialect/Sched/Transforms/Passes.h"
#include "pipewave/Dialect/Sched/Utils/ProgramIR.h"
#include "pipewave/Simulator/Simulator.h"
#include "pipewave/Simulator/Trace.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

namespace pipewave::sched {
#define GEN_PASS_DEF_SCHEDSIMULATE
#include "pipewave/Dialect/Sched/Transforms/Passes.h.inc"
} // namespace pipewave::sched

using namespace mlir;
using namespace pipewave;
using namespace pipewave::sched;

namespace {

/// printf into a std::string.
template <typename... Args> std::string format(const char *fmt, Args... args) {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, fmt, args...);
  return buffer;
}

std::string stagesOf(const schedule::RankProgram &rank) {
  std::string text;
  for (int stage : rank.stages)
    text += (text.empty() ? "" : ",") + std::to_string(stage);
  return text;
}

/// The report: the step, the per-stage costs and the per-rank memory. Raw
/// numbers are seconds and bytes (%g), followed by readable ones.
/// Data-parallel replicas the program itself places on ranks
/// (pipe-schedule{replicas=R}): the ranks holding stage 0, at least 1.
int programReplicas(const schedule::Program &program) {
  return std::max<int>(
      1, static_cast<int>(schedule::ranksOfStage(program, 0).size()));
}

std::string formatReport(const schedule::Program &program,
                         const ModelCosts &costs, const sim::CostTable &table,
                         const sim::Cluster &cluster,
                         const sim::SimReport &report) {
  std::string text;
  int numDevices = 0;
  for (const sim::RankReport &rank : report.ranks)
    numDevices += static_cast<int>(rank.devices.size());
  std::string devices = numDevices != static_cast<int>(program.ranks.size())
                            ? " (" + std::to_string(numDevices) + " devices)"
                            : "";
  text += format("sched-simulate: \"%s\", %d stages on %zu ranks%s, %d "
                 "microbatches%s, on %s (%s per device)\n",
                 program.schedule.c_str(), program.numStages,
                 program.ranks.size(), devices.c_str(), program.numMicrobatches,
                 program.forwardOnly ? ", forward only" : "",
                 costs.device.name.c_str(),
                 sim::formatBytes(cluster.memoryBytes).c_str());
  text += format("step time: %g s (%s)\n", report.stepTime,
                 sim::formatSeconds(report.stepTime).c_str());
  text += format("bubble fraction: %.4f\n", report.bubbleFraction);
  if (report.oversubscription > 1)
    text += format("oversubscribed: %zu ranks on %d cores, every duration "
                   "stretched by %g\n",
                   program.ranks.size(), costs.device.calibration->cores,
                   report.oversubscription);
  text += format("memory: %s\n",
                 report.fits ? "every rank fits" : "some rank does not fit");
  text += costs.hasSplitBackward()
              ? "backward: the pipe.bwd, pipe.bwd_input and pipe.bwd_weight "
                "functions\n"
          : costs.hasBackwardFunctions()
              ? "backward: the pipe.bwd functions; I = W = B / 2\n"
              : "backward: derived from the forward ops as pipe-autodiff "
                "would generate it (no pipe.bwd functions)\n";
  text += "per microbatch (seconds, bytes):\n";
  text += format("  %-5s %-20s %-12s %-12s %-12s %-12s %-12s %-12s %-12s "
                 "%s\n",
                 "stage", "function", "F", "B", "I", "W", "optimizer", "send",
                 "params", "stash");
  for (size_t s = 0; s < table.stages.size(); ++s) {
    const sim::StageCosts &stage = table.stages[s];
    text += format("  %-5zu %-20s %-12g %-12g %-12g %-12g %-12g %-12g %-12g "
                   "%g\n",
                   s, costs.stages[s].function.c_str(), stage.forward,
                   stage.backward, stage.backwardInput, stage.backwardWeight,
                   stage.optimizer, stage.activationBytes, stage.parameterBytes,
                   stage.stashBytes);
  }
  text += "peak memory per device (bytes):\n";
  text += format("  %-5s %-8s %-12s %-12s %-12s %-12s %-12s %-12s %-12s "
                 "%-12s %s\n",
                 "rank", "stages", "busy", "weights", "gradients", "optimizer",
                 "stash", "buffers", "total", "", "fits");
  for (size_t r = 0; r < report.ranks.size(); ++r) {
    const sim::RankReport &rank = report.ranks[r];
    const sim::MemoryBreakdown &m = rank.peakMemory;
    text +=
        format("  %-5zu %-8s %-12g %-12g %-12g %-12g %-12g %-12g %-12g "
               "%-12s %s\n",
               r, stagesOf(program.ranks[r]).c_str(), rank.busy, m.weights,
               m.gradients, m.optimizer, m.stash, m.buffers, m.total(),
               sim::formatBytes(m.total()).c_str(), rank.fits ? "yes" : "no");
  }
  if (program.forwardOnly)
    return text;
  // The stash alone: the most microbatches each held stage keeps at once
  // (the peak above is that of the total, where the stash may be lower).
  text += "peak stash per device (bytes): most microbatches in flight x "
          "stash per microbatch, per held stage\n";
  text +=
      format("  %-5s %-8s %-12s %s\n", "rank", "stages", "in flight", "stash");
  for (size_t r = 0; r < report.ranks.size(); ++r) {
    std::string counts;
    double bytes = 0;
    for (auto [stage, count] : report.ranks[r].peakInFlight) {
      counts += (counts.empty() ? "" : "+") + std::to_string(count);
      bytes += count * table.stages[stage].stashBytes;
    }
    text += format("  %-5zu %-8s %-12s %g\n", r,
                   stagesOf(program.ranks[r]).c_str(), counts.c_str(), bytes);
  }
  return text;
}

LogicalResult writeText(Operation *at, StringRef path, StringRef text,
                        StringRef what) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> out = openOutputFile(path, &error);
  if (!out)
    return at->emitError() << "sched-simulate: cannot write the " << what
                           << " '" << path << "': " << error;
  out->os() << text;
  out->os().flush();
  out->keep();
  return success();
}

struct SchedSimulatePass
    : public sched::impl::SchedSimulateBase<SchedSimulatePass> {
  using SchedSimulateBase::SchedSimulateBase;

  /// The entry's `pipe.replicas` (pipe-plan, `replicas`): rank r of a program
  /// with one stage per rank becomes a data-parallel group of replicas[stage]
  /// devices (numbered consecutively), each doing 1/replicas of every
  /// microbatch and stashing that share. Programs with several stages per
  /// rank get a warning and one device per rank; programs that already
  /// replicate their stages on ranks are simulated as they are.
  LogicalResult applyReplicas(func::FuncOp fn, const schedule::Program &program,
                              ArrayRef<int64_t> replicas, sim::CostTable &table,
                              sim::Placement &placement, int &numDevices) {
    if (replicas.empty() ||
        llvm::all_of(replicas, [](int64_t r) { return r == 1; }))
      return success();
    // The program's own replicas (pipe-schedule placed them on ranks).
    if (programReplicas(program) > 1)
      return success();
    if (static_cast<int>(replicas.size()) != program.numStages) {
      fn.emitError() << "sched-simulate: pipe.replicas has " << replicas.size()
                     << " entries but the program has " << program.numStages
                     << " stages";
      return failure();
    }
    bool onePerRank =
        static_cast<int>(program.ranks.size()) == program.numStages &&
        llvm::all_of(program.ranks,
                     [](const auto &rank) { return rank.stages.size() == 1; });
    if (!onePerRank) {
      fn.emitWarning() << "sched-simulate: pipe.replicas ignored: the ranks "
                          "of \""
                       << program.schedule << "\" do not hold one stage each";
      return success();
    }
    numDevices = 0;
    for (size_t r = 0; r < program.ranks.size(); ++r) {
      int stage = program.ranks[r].stages.front();
      int count = static_cast<int>(replicas[stage]);
      placement.devices[r].clear();
      for (int d = 0; d < count; ++d)
        placement.devices[r].push_back(numDevices++);
      sim::StageCosts &costs = table.stages[stage];
      costs.forward /= count;
      costs.backward /= count;
      costs.backwardInput /= count;
      costs.backwardWeight /= count;
      costs.stashBytes /= count;
    }
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<ProgramOp> programs(module.getBody()->getOps<ProgramOp>());
    if (programs.empty()) {
      module.emitError() << "sched-simulate: no sched.program to simulate; "
                            "run pipe-schedule first";
      return signalPassFailure();
    }
    auto fn = module.lookupSymbol<func::FuncOp>(entry);
    if (!fn || fn.isExternal() || !fn.getBody().hasOneBlock()) {
      module.emitError() << "sched-simulate: entry function '@" << entry
                         << "' with a body of one block not found (set the "
                            "pass option entry=NAME)";
      return signalPassFailure();
    }
    std::string error;
    std::optional<sim::DeviceSpec> deviceSpec = resolveDevice(device, error);
    if (!deviceSpec) {
      module.emitError() << "sched-simulate: " << error;
      return signalPassFailure();
    }
    double capacity = 0;
    if (!memory.empty()) {
      std::optional<double> bytes = sim::parseBytes(memory);
      if (!bytes || *bytes <= 0) {
        module.emitError() << "sched-simulate: memory= expects a size such "
                              "as 16GiB, got '"
                           << memory << "'";
        return signalPassFailure();
      }
      capacity = *bytes;
    }
    if (devicesPerNode < 1) {
      module.emitError() << "sched-simulate: devices-per-node must be at "
                            "least 1, got "
                         << static_cast<int64_t>(devicesPerNode);
      return signalPassFailure();
    }
    if (programs.size() > 1 && (!trace.empty() || !svg.empty())) {
      programs[1].emitError() << "sched-simulate: trace= and svg= need a "
                                 "module with one sched.program, found "
                              << programs.size();
      return signalPassFailure();
    }

    FailureOr<ModelCosts> costs =
        computeModelCosts(fn, *deviceSpec, "sched-simulate");
    if (failed(costs))
      return signalPassFailure();
    if (costs->uncostedOps > 0)
      fn.emitWarning() << "sched-simulate: " << costs->uncostedOps
                       << " operation(s) have no cost rule and count as "
                          "free (first: '"
                       << costs->firstUncosted << "')";

    std::string reportText;
    for (ProgramOp programOp : programs) {
      schedule::Program program = readProgramOp(programOp).program;
      if (program.numStages != static_cast<int>(costs->stages.size())) {
        programOp.emitError()
            << "sched-simulate: the program has " << program.numStages
            << " stages but '@" << entry << "' calls " << costs->stages.size()
            << " stage functions";
        return signalPassFailure();
      }
      // A program that replicates its stages (pipe-schedule{replicas=R})
      // splits the batch into R x M microbatches, one rank per device.
      int numDevices = static_cast<int>(program.ranks.size());
      sim::CostTable table = costs->costTable(
          static_cast<int64_t>(program.numMicrobatches) *
              programReplicas(program),
          /*fullRecompute=*/false,
          nodeParameterShare(numDevices, static_cast<int>(devicesPerNode),
                             programReplicas(program)));
      sim::Placement placement = sim::Placement::onePerRank(numDevices);
      if (failed(applyReplicas(fn, program, costs->plannedReplicas, table,
                               placement, numDevices)))
        return signalPassFailure();
      sim::Cluster cluster = makeCluster(
          *deviceSpec, numDevices, static_cast<int>(devicesPerNode), capacity);
      sim::SimReport report = sim::simulate(program, table, cluster, placement);
      if (!report.error.empty()) {
        programOp.emitError() << "sched-simulate: " << report.error;
        return signalPassFailure();
      }
      std::string text = formatReport(program, *costs, table, cluster, report);
      if (reportFile.empty()) {
        if (!text.empty() && text.back() == '\n')
          text.pop_back();
        mlir::emitRemark(programOp.getLoc()) << text;
      } else {
        reportText += text;
      }
      if (!trace.empty() &&
          failed(writeText(programOp, trace, sim::chromeTrace(program, report),
                           "trace")))
        return signalPassFailure();
      if (!svg.empty()) {
        sim::SvgOptions options;
        options.title = program.schedule + ", " +
                        std::to_string(program.numStages) + " stages, " +
                        std::to_string(program.numMicrobatches) +
                        " microbatches on " + deviceSpec->name;
        if (failed(writeText(programOp, svg,
                             sim::svgTimeline(program, report, options),
                             "SVG timeline")))
          return signalPassFailure();
      }
    }
    if (!reportFile.empty() &&
        failed(writeText(module, reportFile, reportText, "report")))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
};

} // namespace
