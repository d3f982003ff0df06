//===- Pipelines.cpp - Registered pass pipelines
//---------------------------===//
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
  pipe::PipeScheduleOptions schedule;
  schedule.schedule = options.schedule;
  schedule.microbatches = options.microbatches;
  schedule.chunks = options.chunks;
  schedule.waves = options.waves;
  schedule.file = options.file;
  schedule.device = options.device;
  schedule.memory = options.memory;
  schedule.entry = options.entry;
  pm.addPass(pipe::createPipeSchedule(schedule));
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
