//===- CompileSummary.cpp - Compute what a compile made -------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Reads the stage functions, the entry's parameters and the sched.program
// of a module after pipe-compile's front end, and simulates the program on
// the summary's device as sched-simulate does.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Summary/CompileSummary.h"
#include "pipewave/Analysis/CostModel.h"
#include "pipewave/Analysis/StageCosts.h"
#include "pipewave/Dialect/Pipe/IR/Pipe.h"
#include "pipewave/Dialect/Pipe/Utils/EntryFunction.h"
#include "pipewave/Dialect/Pipe/Utils/StageFunctions.h"
#include "pipewave/Dialect/Sched/Utils/ProgramIR.h"
#include "pipewave/Simulator/Simulator.h"

#include "llvm/Support/Path.h"

#include <functional>

using namespace mlir;
using namespace pipewave;

namespace {

/// Devices per node of the simulated cluster (pipe-schedule's default).
constexpr int kDevicesPerNode = 8;

/// Where `loc` points, for people: "file.mlir:LINE" (the file's name
/// only), the name of a NameLoc (an importer's node name), else "".
std::string describeLocation(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (llvm::sys::path::filename(file.getFilename().getValue()) + ":" +
            Twine(file.getLine()))
        .str();
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return describeLocation(callSite.getCallee());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location part : fused.getLocations())
      if (std::string text = describeLocation(part); !text.empty())
        return text;
  return "";
}

/// "f32 16x64" for a ranked tensor type, else the type as MLIR prints it.
std::string describeType(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor) {
    type.print(os);
    return text;
  }
  tensor.getElementType().print(os);
  os << " ";
  if (tensor.getRank() == 0)
    os << "scalar";
  llvm::interleave(
      tensor.getShape(), os,
      [&](int64_t d) { ShapedType::isDynamic(d) ? os << "?" : os << d; }, "x");
  return text;
}

int64_t elementsOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() ? tensor.getNumElements() : 0;
}

/// The operations, first/last operation and parameters of one stage.
StageSummary summarizeStage(func::FuncOp fn) {
  StageSummary stage;
  stage.function = fn.getSymName().str();
  // The operations inside a pipe region (pipe.recompute) count, the region
  // holder does not.
  std::function<void(Block &)> visit = [&](Block &block) {
    for (Operation &op : block.without_terminator()) {
      if (isFreeConstant(&op))
        continue;
      if (op.getNumRegions() == 1 && isa<pipe::PipeDialect>(op.getDialect()) &&
          op.getRegion(0).hasOneBlock()) {
        visit(op.getRegion(0).front());
        continue;
      }
      if (stage.numOps++ == 0) {
        stage.firstOp = op.getName().getStringRef().str();
        stage.firstOpLocation = describeLocation(op.getLoc());
      }
      stage.lastOp = op.getName().getStringRef().str();
      stage.lastOpLocation = describeLocation(op.getLoc());
    }
  };
  visit(fn.getBody().front());
  for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
    if (!pipe::isParam(fn, i))
      continue;
    Type type = fn.getArgument(i).getType();
    stage.parameters.push_back(pipe::getArgName(fn, i));
    stage.parameterElements += elementsOf(type);
    stage.parameterBytes += typeBytes(type);
  }
  return stage;
}

/// `pipewave-run -n N OUT --data NAME=NAME.npy ... [--init FILE]`, with
/// "./" before an output in the current directory.
std::string runCommand(const CompileSummary &summary, const SummaryInputs &in) {
  std::string binary = in.output;
  if (binary.find('/') == std::string::npos)
    binary = "./" + binary;
  std::string command =
      "pipewave-run -n " + std::to_string(summary.numRanks) + " " + binary;
  for (const InputSummary &input : summary.dataInputs)
    command += " --data " + input.name + "=" + input.name + ".npy";
  if (!in.initFile.empty())
    command += " --init " + in.initFile;
  return command;
}

} // namespace

FailureOr<CompileSummary>
pipewave::computeCompileSummary(ModuleOp module, const SummaryInputs &in) {
  const char *what = "compile summary";
  func::FuncOp entry = pipe::lookupEntry(module, in.entry, what);
  if (!entry)
    return failure();
  auto programs = module.getBody()->getOps<sched::ProgramOp>();
  if (programs.empty())
    return module.emitError() << what << ": the module has no sched.program";
  FailureOr<std::vector<func::FuncOp>> stageFunctions =
      pipe::getStageFunctions(entry, what);
  if (failed(stageFunctions))
    return failure();

  CompileSummary summary;
  summary.modelFile = in.modelFile;
  summary.modelFormat = in.modelFormat;
  summary.autoSchedule = in.autoSchedule;
  summary.recompute = in.recompute;
  summary.batch = pipe::getEntryBatch(entry);
  for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
    Type type = entry.getArgument(i).getType();
    // The step counter of dropout is filled by the runtime, not given.
    if (pipe::isCounterArg(entry, i))
      continue;
    if (!pipe::isParam(entry, i)) {
      summary.dataInputs.push_back(
          {pipe::getArgName(entry, i), describeType(type)});
      continue;
    }
    ++summary.numParameters;
    summary.parameterElements += elementsOf(type);
    summary.parameterBytes += typeBytes(type);
  }

  schedule::Program program = sched::readProgramOp(*programs.begin()).program;
  if (program.numStages != static_cast<int>(stageFunctions->size()))
    return module.emitError()
           << what << ": the program has " << program.numStages
           << " stages but '@" << in.entry << "' calls "
           << stageFunctions->size() << " stage functions";
  summary.schedule = program.schedule;
  summary.forwardOnly = program.forwardOnly;
  summary.numStages = program.numStages;
  summary.microbatches = program.numMicrobatches;
  summary.numRanks = static_cast<int>(program.ranks.size());
  summary.replicas = std::max<int>(
      1, static_cast<int>(schedule::ranksOfStage(program, 0).size()));
  for (int s = 0; s < program.numStages; ++s) {
    StageSummary stage = summarizeStage((*stageFunctions)[s]);
    stage.ranks = schedule::ranksOfStage(program, s);
    summary.stages.push_back(std::move(stage));
  }

  std::string error;
  std::optional<sim::DeviceSpec> device = resolveDevice(in.device, error);
  if (!device)
    return module.emitError() << what << ": " << error;
  summary.device = device->name;
  summary.deviceDescription = device->description;
  summary.deviceReason = in.deviceReason;
  summary.matmul = in.matmul;
  FailureOr<ModelCosts> costs = computeModelCosts(entry, *device, what);
  if (failed(costs))
    return failure();
  // A program with R replicas splits the batch into R x M microbatches.
  sim::CostTable table = costs->costTable(
      static_cast<int64_t>(program.numMicrobatches) * summary.replicas,
      /*fullRecompute=*/false,
      nodeParameterShare(summary.numRanks, kDevicesPerNode, summary.replicas));
  sim::Cluster cluster =
      makeCluster(*device, summary.numRanks, kDevicesPerNode, 0);
  sim::SimReport report = sim::simulate(program, table, cluster);
  if (!report.error.empty())
    return module.emitError() << what << ": " << report.error;
  summary.deviceMemoryBytes = cluster.memoryBytes;
  summary.stepSeconds = report.stepTime;
  summary.bubbleFraction = report.bubbleFraction;
  summary.fits = report.fits;
  for (size_t r = 0; r < report.ranks.size(); ++r) {
    RankSummary rank;
    rank.stages = program.ranks[r].stages;
    rank.peakMemoryBytes = report.ranks[r].peakMemory.total();
    rank.fits = report.ranks[r].fits;
    summary.ranks.push_back(std::move(rank));
  }
  summary.output = in.output;
  if (!in.output.empty())
    summary.runCommand = runCommand(summary, in);
  return summary;
}
