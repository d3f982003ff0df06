//===- Pipelines.cpp - Registered pass pipelines ---------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Pipelines/Pipelines.h"
#include "pipewave/Dialect/Pipe/Transforms/Passes.h"
#include "pipewave/Dialect/Sched/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void pipewave::buildPipeTrainPipeline(OpPassManager &pm,
                                      const PipeTrainOptions &options) {
  pm.addPass(pipe::createPipePartition(
      {options.numStages, options.strategy, options.entry}));
  pm.addPass(pipe::createPipeOutlineStages({options.entry}));
  pm.addPass(pipe::createPipeInsertComm({options.entry}));
  pm.addPass(pipe::createPipeSchedule(
      {options.schedule, options.microbatches, options.entry}));
  pm.addPass(sched::createSchedVerify());
}

void pipewave::registerPipelines() {
  PassPipelineRegistration<PipeTrainOptions>(
      "pipe-train",
      "Cuts the entry function into pipeline stages and emits a verified "
      "sched program (pipe-partition, pipe-outline-stages, pipe-insert-comm, "
      "pipe-schedule, sched-verify)",
      buildPipeTrainPipeline);
}
