//===- Schedule.cpp - pipe-schedule: emit the sched program ----------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Reads the stage composition of the entry function and appends the
// sched.program of the chosen schedule. The schedules themselves are built by
// the plain C++ generators of lib/Schedule.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Pipe/Transforms/Passes.h"
#include "pipewave/Dialect/Pipe/Utils/EntryFunction.h"
#include "pipewave/Dialect/Sched/Utils/ProgramIR.h"
#include "pipewave/Schedule/Generate.h"

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

/// Checks that `microbatches` splits dimension 0 of every data input.
LogicalResult checkBatch(func::FuncOp fn, int64_t microbatches) {
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
    if (isParam(fn, i))
      continue;
    auto type = dyn_cast<RankedTensorType>(fn.getArgumentTypes()[i]);
    if (!type || type.getRank() == 0 || type.isDynamicDim(0))
      return fn.emitError() << "pipe-schedule: data input '" << getArgName(fn, i)
                            << "' needs a static batch dimension 0 to be split "
                               "into microbatches, got "
                            << fn.getArgumentTypes()[i];
    if (type.getDimSize(0) % microbatches != 0)
      return fn.emitError() << "pipe-schedule: microbatches=" << static_cast<int64_t>(microbatches)
                            << " does not divide the batch size "
                            << type.getDimSize(0)
                            << " (dimension 0 of data input '"
                            << getArgName(fn, i) << "')";
  }
  return success();
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
    SymbolTableCollection symbols;
    int64_t numStages = 0;
    for (auto call : fn.getBody().front().getOps<func::CallOp>()) {
      auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (!callee || getStage(callee) < 0)
        continue;
      if (getStage(callee) != numStages) {
        call.emitError() << "pipe-schedule: expected a call of stage "
                         << numStages << ", found stage " << getStage(callee);
        return signalPassFailure();
      }
      ++numStages;
    }
    if (numStages == 0) {
      fn.emitError() << "pipe-schedule: '@" << entry
                     << "' calls no stage function; run pipe-partition and "
                        "pipe-outline-stages first";
      return signalPassFailure();
    }
    if (microbatches < 1) {
      fn.emitError() << "pipe-schedule: microbatches must be at least 1, got "
                     << static_cast<int64_t>(microbatches);
      return signalPassFailure();
    }
    if (failed(checkBatch(fn, microbatches)))
      return signalPassFailure();

    bool forwardOnly = !hasLoss(fn);
    schedule::BuildResult built;
    if (schedule == "gpipe")
      built = schedule::buildGPipe(numStages, microbatches, forwardOnly);
    else if (schedule == "1f1b")
      built = forwardOnly
                  ? schedule::buildGPipe(numStages, microbatches, true)
                  : schedule::build1F1B(numStages, microbatches);
    else {
      fn.emitError() << "pipe-schedule: unknown schedule '" << schedule
                     << "'; expected gpipe or 1f1b";
      return signalPassFailure();
    }
    if (!built) {
      fn.emitError() << "pipe-schedule: " << built.error;
      return signalPassFailure();
    }
    built.program->schedule = schedule;

    // Replace the program of an earlier run.
    for (auto old : llvm::make_early_inc_range(
             module.getBody()->getOps<sched::ProgramOp>()))
      old.erase();
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    sched::buildProgramOp(builder, fn.getLoc(), *built.program);
  }
};

} // namespace
