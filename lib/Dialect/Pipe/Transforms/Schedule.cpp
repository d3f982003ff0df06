//===- Schedule.cpp - pipe-schedule: emit the sched program ---------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Reads the stage composition of the entry function and appends the
// sched.program of the chosen schedule: one of the generators of
// lib/Schedule, an action-list file, or (auto) the fastest generated
// schedule that fits in memory under the cost-based simulator.
//
//===----------------------------------------------------------------------===//

#include "ScheduleBuild.h"
#include "TrainedParameters.h"

#include "pipewave/Analysis/StageCosts.h"
#include "pipewave/Dialect/Pipe/Transforms/Passes.h"
#include "pipewave/Dialect/Pipe/Utils/EntryFunction.h"
#include "pipewave/Dialect/Pipe/Utils/StageFunctions.h"
#include "pipewave/Dialect/Sched/Utils/ProgramIR.h"
#include "pipewave/Schedule/ActionList.h"
#include "pipewave/Schedule/Generate.h"
#include "pipewave/Schedule/Registry.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

namespace pipewave::pipe {
#define GEN_PASS_DEF_PIPESCHEDULE
#include "pipewave/Dialect/Pipe/Transforms/Passes.h.inc"
} // namespace pipewave::pipe

using namespace mlir;
using namespace pipewave;
using namespace pipewave::pipe;

namespace {

/// True when the entry's first result is a rank-0 floating point tensor: the
/// loss of a training step.
bool hasLoss(func::FuncOp fn) {
  if (fn.getNumResults() == 0)
    return false;
  auto type = dyn_cast<RankedTensorType>(fn.getResultTypes().front());
  return type && type.getRank() == 0 && isa<FloatType>(type.getElementType());
}

/// Checks that `microbatches` per replica times `replicas` splits dimension
/// 0 of every data input; reports why not unless `quiet`.
LogicalResult checkBatch(func::FuncOp fn, int64_t microbatches,
                         int64_t replicas, bool quiet = false) {
  auto fail = [&](auto &&...parts) {
    if (!quiet) {
      InFlightDiagnostic diag = fn.emitError();
      (diag << ... << parts);
    }
    return failure();
  };
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
    if (isParam(fn, i))
      continue;
    auto type = dyn_cast<RankedTensorType>(fn.getArgumentTypes()[i]);
    if (!type || type.getRank() == 0 || type.isDynamicDim(0))
      return fail("pipe-schedule: data input '", getArgName(fn, i),
                  "' needs a static batch dimension 0 to be split "
                  "into microbatches, got ",
                  fn.getArgumentTypes()[i]);
    if (replicas > 1 && type.getDimSize(0) % (microbatches * replicas) != 0)
      return fail("pipe-schedule: microbatches=", microbatches,
                  " x replicas=", replicas, " = ", microbatches * replicas,
                  " parts do not divide the batch size ", type.getDimSize(0),
                  " (dimension 0 of data input '", getArgName(fn, i), "')");
    if (type.getDimSize(0) % microbatches != 0)
      return fail("pipe-schedule: microbatches=", microbatches,
                  " does not divide the batch size ", type.getDimSize(0),
                  " (dimension 0 of data input '", getArgName(fn, i), "')");
  }
  return success();
}

/// "line L, column C: message" from the action-list parser becomes
/// "PATH:L:C: message"; other messages get a "PATH: " prefix.
std::string locateParseError(StringRef path, StringRef error) {
  unsigned line = 0, column = 0;
  StringRef rest = error;
  if (rest.consume_front("line ") && !rest.consumeInteger(10, line) &&
      rest.consume_front(", column ") && !rest.consumeInteger(10, column) &&
      rest.consume_front(": "))
    return (path + ":" + Twine(line) + ":" + Twine(column) + ": " + rest).str();
  return (path + ": " + error).str();
}

struct PipeSchedulePass
    : public pipe::impl::PipeScheduleBase<PipeSchedulePass> {
  using PipeScheduleBase::PipeScheduleBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp fn = lookupEntry(module, entry, "pipe-schedule");
    if (!fn)
      return signalPassFailure();

    // Stages are the stage functions the entry calls, in order.
    FailureOr<std::vector<func::FuncOp>> stageFns =
        pipe::getStageFunctions(fn, "pipe-schedule");
    if (failed(stageFns))
      return signalPassFailure();
    int numStages = static_cast<int>(stageFns->size());
    if (numStages == 0) {
      fn.emitError() << "pipe-schedule: '@" << entry
                     << "' calls no stage function; run pipe-partition and "
                        "pipe-outline-stages first";
      return signalPassFailure();
    }
    if (microbatches < 0) {
      fn.emitError() << "pipe-schedule: microbatches must be at least 1, got "
                     << static_cast<int64_t>(microbatches);
      return signalPassFailure();
    }
    if (failed(checkOptions(fn)) || failed(resolveReplicas(fn, numStages)))
      return signalPassFailure();

    // The microbatch count fixed before this pass, if any: the option, the
    // count pipe-microbatch specialised the stages for (one microbatch of
    // one replica), or pipe-plan's.
    specialized = pipe::getSpecializedMicrobatches(fn);
    fixedMicrobatches = microbatches;
    if (fixedMicrobatches == 0 && specialized != 0) {
      if (failed(checkPlannedSpecialisation(fn)))
        return signalPassFailure();
      if (specialized % numReplicas != 0) {
        fn.emitError() << "pipe-schedule: pipe-microbatch specialised the "
                          "stage functions for "
                       << specialized
                       << " microbatches, which replicas=" << numReplicas
                       << " does not divide (the stage functions compute one "
                          "microbatch of one replica)";
        return signalPassFailure();
      }
      fixedMicrobatches = specialized / numReplicas;
    }
    if (fixedMicrobatches == 0)
      if (IntegerAttr attr =
              PipeDialect::MicrobatchesAttrHelper(fn.getContext()).getAttr(fn))
        fixedMicrobatches = attr.getInt();
    bool forwardOnly = forceForwardOnly || !hasLoss(fn);
    std::vector<schedule::TiedParameter> tied;
    if (!forwardOnly) {
      FailureOr<std::vector<schedule::TiedParameter>> found =
          checkTrainedParameters(fn, *stageFns);
      if (failed(found))
        return signalPassFailure();
      tied = std::move(*found);
    }

    std::optional<schedule::Program> program;
    if (schedule == "file")
      program = readFile(fn, numStages, forwardOnly);
    else if (schedule == "auto")
      program = searchBest(fn, forwardOnly);
    else
      program = generate(fn, numStages, forwardOnly);
    if (!program)
      return signalPassFailure();
    if (numReplicas > 1) {
      schedule::BuildResult replicated =
          scheduling::replicateProgram(*program, static_cast<int>(numReplicas));
      if (!replicated) {
        fn.emitError() << "pipe-schedule: " << replicated.error;
        return signalPassFailure();
      }
      program = std::move(replicated.program);
    }
    // Every holder of a tied parameter sums its copies' gradients.
    if (!tied.empty()) {
      schedule::BuildResult withTied =
          schedule::addTiedAllReduces(*program, tied);
      if (!withTied) {
        fn.emitError() << "pipe-schedule: " << withTied.error;
        return signalPassFailure();
      }
      program = std::move(withTied.program);
    }

    // Replace the program of an earlier run.
    for (auto old : llvm::make_early_inc_range(
             module.getBody()->getOps<sched::ProgramOp>()))
      old.erase();
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    sched::buildProgramOp(builder, fn.getLoc(), *program);
  }

  /// Rejects options that do not apply to the chosen schedule.
  LogicalResult checkOptions(func::FuncOp fn) {
    StringRef name = schedule;
    const schedule::ScheduleRegistry &registry =
        schedule::ScheduleRegistry::instance();
    const schedule::ScheduleFamily *family = registry.lookup(name);
    if (!family && name != "file" && name != "auto")
      return fn.emitError()
             << "pipe-schedule: unknown schedule '" << name << "'; expected "
             << registry.names() << ", file or auto";
    auto takes = [&](StringRef option) {
      return family && family->optionName == option;
    };
    if (chunks != 0 && !takes("chunks"))
      return fn.emitError()
             << "pipe-schedule: chunks=" << static_cast<int64_t>(chunks)
             << " only applies to schedule="
             << registry.familiesWithOption("chunks");
    if (waves != 0 && !takes("waves"))
      return fn.emitError()
             << "pipe-schedule: waves=" << static_cast<int64_t>(waves)
             << " only applies to schedule="
             << registry.familiesWithOption("waves");
    if (!file.empty() && name != "file")
      return fn.emitError() << "pipe-schedule: file=" << file
                            << " only applies to schedule=file";
    if (name == "file" && file.empty())
      return fn.emitError()
             << "pipe-schedule: schedule=file needs file=PATH (an action "
                "list, see docs/schedule-format.md)";
    if (chunks < 0 || waves < 0)
      return fn.emitError() << "pipe-schedule: chunks and waves must be at "
                               "least 1";
    return success();
  }

  /// The replica count: the option, else the entry's pipe.replicas when it
  /// is the same for every stage, else 1.
  LogicalResult resolveReplicas(func::FuncOp fn, int numStages) {
    if (replicas < 0)
      return fn.emitError() << "pipe-schedule: replicas must be at least 1, "
                               "got "
                            << static_cast<int64_t>(replicas);
    numReplicas = replicas;
    replicasFromPlan = false;
    if (numReplicas == 0) {
      numReplicas = 1;
      DenseI64ArrayAttr planned =
          PipeDialect::ReplicasAttrHelper(fn.getContext()).getAttr(fn);
      if (planned && !planned.empty()) {
        ArrayRef<int64_t> counts = planned.asArrayRef();
        auto describe = [&] {
          std::string text =
              PipeDialect::ReplicasAttrHelper::getNameStr().str() + " = [";
          for (size_t s = 0; s < counts.size(); ++s)
            text += (s ? ", " : "") + std::to_string(counts[s]);
          return text + "]";
        };
        if (static_cast<int>(counts.size()) != numStages)
          return fn.emitError()
                 << "pipe-schedule: the entry's " << describe() << " has "
                 << counts.size() << " entries but '@" << entry << "' calls "
                 << numStages
                 << " stage functions; set replicas=N to choose the "
                    "replica count";
        if (llvm::any_of(counts,
                         [&](int64_t count) { return count != counts[0]; }))
          return fn.emitError()
                 << "pipe-schedule: the entry's " << describe()
                 << " replicates the stages unevenly; pipe-schedule copies "
                    "the whole pipeline, so every stage needs the same "
                    "count (set replicas=N to choose one)";
        if (counts[0] < 1)
          return fn.emitError() << "pipe-schedule: the entry's " << describe()
                                << " has a count below 1";
        numReplicas = counts[0];
        replicasFromPlan = numReplicas > 1;
      }
    }
    if (numReplicas > 1 && schedule == "auto")
      return fn.emitError()
             << "pipe-schedule: schedule=auto searches a single pipeline and "
                "cannot replicate it ("
             << (replicasFromPlan ? "the entry's pipe.replicas asks for "
                                  : "replicas=")
             << numReplicas << "); choose a schedule"
             << (replicasFromPlan ? ", or set replicas=1" : "");
    return success();
  }

  /// After pipe-plan, pipe-microbatch must have split the batch into the
  /// plan's microbatches for each of its replicas.
  LogicalResult checkPlannedSpecialisation(func::FuncOp fn) {
    IntegerAttr planned =
        PipeDialect::MicrobatchesAttrHelper(fn.getContext()).getAttr(fn);
    if (!replicasFromPlan || !planned ||
        planned.getInt() * numReplicas == specialized)
      return success();
    return fn.emitError()
           << "pipe-schedule: the plan (pipe.microbatches = "
           << planned.getInt() << ", pipe.replicas of " << numReplicas
           << ") needs the stage functions specialised for "
           << planned.getInt() * numReplicas << " microbatches ("
           << planned.getInt() << " per replica x " << numReplicas
           << " replicas), but pipe-microbatch specialised them for "
           << specialized << "; run pipe-microbatch{microbatches="
           << planned.getInt() * numReplicas
           << "}, or set microbatches and replicas";
  }

  /// A generated schedule, with the fixed microbatch count or else 1.
  std::optional<schedule::Program> generate(func::FuncOp fn, int numStages,
                                            bool forwardOnly) {
    const schedule::ScheduleFamily *family =
        schedule::ScheduleRegistry::instance().lookup(schedule);
    // The pass's shape options by name; 0 takes the family's default.
    int64_t option = family->optionName == "chunks"  ? chunks
                     : family->optionName == "waves" ? waves
                                                     : 0;
    int64_t M = fixedMicrobatches ? fixedMicrobatches : 1;
    if (failed(checkSpecialized(fn, M)) ||
        failed(checkBatch(fn, M, numReplicas)))
      return std::nullopt;
    schedule::BuildResult built =
        schedule::buildFamily(*family, static_cast<int>(option), numStages,
                              static_cast<int>(M), forwardOnly);
    if (!built) {
      fn.emitError() << "pipe-schedule: " << built.error;
      return std::nullopt;
    }
    return std::move(built.program);
  }

  /// After pipe-microbatch{microbatches=M1} the step must have M1.
  LogicalResult checkSpecialized(func::FuncOp fn, int64_t M) {
    if (specialized == 0 || specialized == M * numReplicas)
      return success();
    if (numReplicas > 1)
      return fn.emitError()
             << "pipe-schedule: microbatches=" << M
             << " with replicas=" << numReplicas
             << " needs the stage functions specialised for " << M * numReplicas
             << " microbatches (each replica takes 1/" << numReplicas
             << " of the batch), but pipe-microbatch specialised them for "
             << specialized;
    return fn.emitError()
           << "pipe-schedule: microbatches=" << M
           << " but pipe-microbatch specialised the stage functions for "
           << specialized << " microbatches";
  }

  /// schedule=file: an action list whose S and M match the module.
  std::optional<schedule::Program> readFile(func::FuncOp fn, int numStages,
                                            bool forwardOnly) {
    auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(file, /*IsText=*/true);
    if (!buffer) {
      fn.emitError() << "pipe-schedule: cannot read schedule file '" << file
                     << "': " << buffer.getError().message();
      return std::nullopt;
    }
    schedule::BuildResult parsed =
        schedule::parseActionList((*buffer)->getBuffer());
    if (!parsed) {
      fn.emitError() << "pipe-schedule: "
                     << locateParseError(file, parsed.error);
      return std::nullopt;
    }
    schedule::Program &program = *parsed.program;
    if (program.numStages != numStages) {
      fn.emitError() << "pipe-schedule: " << file
                     << ": the schedule has S=" << program.numStages
                     << " stages but '@" << entry << "' calls " << numStages
                     << " stage functions";
      return std::nullopt;
    }
    if (fixedMicrobatches != 0 &&
        program.numMicrobatches != fixedMicrobatches) {
      fn.emitError() << "pipe-schedule: " << file
                     << ": the schedule has M=" << program.numMicrobatches
                     << " microbatches but "
                     << (microbatches != 0 ? "the option microbatches="
                         : specialized != 0
                             ? "pipe-microbatch specialised the stages for "
                             : "the entry's pipe.microbatches is ")
                     << fixedMicrobatches;
      return std::nullopt;
    }
    if (program.forwardOnly != forwardOnly) {
      fn.emitError() << "pipe-schedule: " << file << ": the schedule is "
                     << (program.forwardOnly ? "forward-only"
                                             : "a training step")
                     << " but '@" << entry << "' "
                     << (forwardOnly ? "returns no loss (an inference step)"
                                     : "returns a loss (a training step)");
      return std::nullopt;
    }
    if (failed(checkBatch(fn, program.numMicrobatches, numReplicas)))
      return std::nullopt;
    return std::move(program);
  }

  /// schedule=auto: simulate the candidates and keep the fastest that fits.
  std::optional<schedule::Program> searchBest(func::FuncOp fn,
                                              bool forwardOnly) {
    std::string error;
    std::optional<sim::DeviceSpec> deviceSpec =
        pipewave::resolveDevice(device, error);
    if (!deviceSpec) {
      fn.emitError() << "pipe-schedule: " << error;
      return std::nullopt;
    }
    double budget = deviceSpec->memoryBytes;
    if (!memory.empty()) {
      std::optional<double> bytes = sim::parseBytes(memory);
      if (!bytes || *bytes <= 0) {
        fn.emitError() << "pipe-schedule: memory= expects a size such as "
                          "16GiB, got '"
                       << memory << "'";
        return std::nullopt;
      }
      budget = *bytes;
    }
    if (maxMicrobatches < 1 || devicesPerNode < 1) {
      fn.emitError() << "pipe-schedule: max-microbatches and "
                        "devices-per-node must be at least 1";
      return std::nullopt;
    }
    FailureOr<pipewave::ModelCosts> costs =
        pipewave::computeModelCosts(fn, *deviceSpec, "pipe-schedule");
    if (failed(costs))
      return std::nullopt;

    scheduling::SearchOptions options;
    options.devicesPerNode = static_cast<int>(devicesPerNode);
    options.memoryBytes = budget;
    options.forwardOnly = forwardOnly;
    options.searchRecompute = !forwardOnly && !costs->hasForwardFunctions();
    std::string mSource;
    if (fixedMicrobatches != 0) {
      if (failed(checkSpecialized(fn, fixedMicrobatches)) ||
          failed(checkBatch(fn, fixedMicrobatches, 1)))
        return std::nullopt;
      options.microbatchCounts = {static_cast<int>(fixedMicrobatches)};
      mSource = "microbatches=" + std::to_string(fixedMicrobatches) +
                (microbatches != 0  ? " (the option)"
                 : specialized != 0 ? " (set by pipe-microbatch)"
                                    : " (the entry's pipe.microbatches)");
    } else if (costs->batch > 0) {
      for (int64_t m = 1; m <= std::min<int64_t>(costs->batch, maxMicrobatches);
           ++m)
        if (costs->batch % m == 0 &&
            succeeded(checkBatch(fn, m, 1, /*quiet=*/true)))
          options.microbatchCounts.push_back(static_cast<int>(m));
      mSource = "microbatches: the divisors of the batch " +
                std::to_string(costs->batch) + " up to " +
                std::to_string(static_cast<int64_t>(maxMicrobatches));
    } else {
      for (int64_t m = 1; m <= maxMicrobatches; m *= 2)
        options.microbatchCounts.push_back(static_cast<int>(m));
      mSource = "microbatches: powers of two up to " +
                std::to_string(static_cast<int64_t>(maxMicrobatches));
    }

    scheduling::SearchResult result =
        scheduling::searchSchedules(*costs, options);
    std::string table =
        formatTable(*costs, result, budget, mSource, options, forwardOnly);
    if (result.best < 0) {
      mlir::emitError(fn.getLoc())
          << "pipe-schedule: schedule=auto: no candidate fits in "
          << sim::formatBytes(budget) << " per device\n"
          << table;
      return std::nullopt;
    }
    const scheduling::Candidate &best = result.candidates[result.best];
    mlir::emitRemark(fn.getLoc())
        << "pipe-schedule: schedule=auto chose " << best.spec.describe()
        << " microbatches=" << best.microbatches
        << (best.fullRecompute ? " with full recompute (run "
                                 "pipe-recompute{policy=full} before "
                                 "pipe-autodiff)"
                               : "")
        << "\n"
        << table;
    return std::move(result.program);
  }

  std::string formatTable(const pipewave::ModelCosts &costs,
                          const scheduling::SearchResult &result, double budget,
                          const std::string &mSource,
                          const scheduling::SearchOptions &options,
                          bool forwardOnly) {
    std::string text;
    llvm::raw_string_ostream os(text);
    size_t fitting = 0;
    for (const scheduling::Candidate &c : result.candidates)
      fitting += c.fits;
    os << "  " << result.candidates.size() << " candidates simulated on "
       << costs.device.name << " with " << sim::formatBytes(budget)
       << " per device, " << fitting << " fit; the fastest that fits wins\n";
    os << "  " << costs.stages.size() << " stages, fixed by the partition; "
       << mSource << "\n";
    if (result.oversubscribed > 0)
      os << "  " << result.oversubscribed << " candidate(s) with more ranks "
         << "than the " << costs.device.calibration->cores << " cores of "
         << costs.device.name
         << " rank last (oversubscribed: the ranks would wait for time "
            "slices, which the simulation does not model)\n";
    if (options.searchRecompute)
      os << "  recompute: none (the stash of every stage) or full (the stage "
            "inputs only; the backward runs the forward again)\n";
    else if (!forwardOnly)
      os << "  recompute: as compiled (the stash of the pipe.fwd "
            "functions)\n";
    if (costs.uncostedOps > 0)
      os << "  " << costs.uncostedOps
         << " operation(s) have no cost rule and count as free (first: '"
         << costs.firstUncosted << "')\n";
    char line[160];
    std::snprintf(line, sizeof line,
                  "    %-22s %5s %-9s %5s %12s %8s %12s %5s\n", "schedule", "M",
                  "recompute", "ranks", "step time", "bubble", "peak memory",
                  "fits");
    os << line;
    for (size_t i = 0; i < result.candidates.size(); ++i) {
      const scheduling::Candidate &c = result.candidates[i];
      std::snprintf(line, sizeof line,
                    "  %s %-22s %5d %-9s %5d %12s %8.4f %12s %5s\n",
                    static_cast<int>(i) == result.best ? "*" : " ",
                    c.spec.describe().c_str(), c.microbatches,
                    !options.searchRecompute ? "-"
                    : c.fullRecompute        ? "full"
                                             : "none",
                    c.ranks, sim::formatSeconds(c.stepSeconds).c_str(),
                    c.bubble, sim::formatBytes(c.peakMemoryBytes).c_str(),
                    !c.fits            ? "no"
                    : c.oversubscribed ? "yes, oversubscribed"
                                       : "yes");
      os << line;
    }
    if (!text.empty() && text.back() == '\n')
      text.pop_back();
    return text;
  }

  int64_t specialized = 0;
  int64_t fixedMicrobatches = 0;
  /// Data-parallel copies of the pipeline, and whether pipe-plan asked.
  int64_t numReplicas = 1;
  bool replicasFromPlan = false;
};

} // namespace
