//===- Pipelines.cpp - Registered pass pipelines --------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// `pipe-train` cuts a model into a verified sched program; `pipe-compile` is
// the whole of pipewave-compile between reading the model and writing
// object code, so that `pipewave-opt` runs (and --mlir-print-ir-* shows)
// exactly what the compiler runs.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Pipelines/Pipelines.h"
#include "pipewave/Conversion/MatmulChoice.h"
#include "pipewave/Conversion/Passes.h"
#include "pipewave/Dialect/Pipe/Transforms/Passes.h"
#include "pipewave/Dialect/Sched/Transforms/Passes.h"
#include "pipewave/Simulator/Device.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <fstream>

using namespace mlir;

namespace {

/// pipe-partition with the shared options (and num-stages).
template <typename Options>
pipewave::pipe::PipePartitionOptions partitionOptions(const Options &options) {
  pipewave::pipe::PipePartitionOptions partition;
  partition.numStages = options.numStages;
  partition.strategy = options.strategy;
  partition.entry = options.entry;
  return partition;
}

/// pipe-schedule with the shared options.
template <typename Options>
pipewave::pipe::PipeScheduleOptions scheduleOptions(const Options &options) {
  pipewave::pipe::PipeScheduleOptions schedule;
  schedule.schedule = options.schedule;
  schedule.microbatches = options.microbatches;
  schedule.chunks = options.chunks;
  schedule.waves = options.waves;
  schedule.file = options.file;
  schedule.device = options.device;
  schedule.memory = options.memory;
  schedule.entry = options.entry;
  return schedule;
}

} // namespace

std::string pipewave::defaultDevice(CompileTarget target) {
  if (target == CompileTarget::CUDA)
    return "h200";
  std::string host = pipewave::sim::calibratedDevicePath(sim::kHostDeviceName);
  if (!host.empty() && std::ifstream(host).good())
    return pipewave::sim::kHostDeviceName;
  return "cpu";
}

LogicalResult pipewave::resolveMatmulChoice(const PipeCompileOptions &options,
                                            ResolvedMatmulChoice &out,
                                            std::string &error) {
  out = ResolvedMatmulChoice();
  if (options.target != CompileTarget::CPU ||
      options.matmul != MatmulLowering::Auto)
    return success();
  MatmulChoice table;
  if (!options.matmulChoice.empty()) {
    out.rules.assign(options.matmulChoice.begin(), options.matmulChoice.end());
    if (!table.apply(out.rules, error))
      return failure();
    out.source = "the matmul-choice option";
    return success();
  }
  std::string device = options.device.empty() ? defaultDevice(options.target)
                                              : std::string(options.device);
  std::optional<sim::DeviceSpec> spec = sim::lookupDevice(device, error);
  if (!spec)
    return failure();
  if (spec->calibration && !spec->calibration->matmulKernels.empty()) {
    // One rule per measured class, in the file's order.
    for (const sim::MatmulKernelPoint &point : spec->calibration->matmulKernels)
      out.rules.push_back(point.matmulClass + ":" + point.kernel);
    if (!table.apply(out.rules, error)) {
      error = "device '" + device + "': matmulKernels: " + error;
      return failure();
    }
    out.source = "the calibration of device '" + device + "'";
  } else {
    out.source = "the built-in default, device '" + device +
                 "' has no measured kernels (pipewave-calibrate measures "
                 "them)";
  }
  // Every class spelled out: the lowering does not depend on the defaults
  // of the build that reads the rules.
  out.rules = table.rules();
  return success();
}

void pipewave::buildPipeTrainPipeline(OpPassManager &pm,
                                      const PipeTrainOptions &options) {
  pm.addPass(pipe::createPipePartition(partitionOptions(options)));
  pm.addPass(pipe::createPipeOutlineStages({options.entry}));
  pm.addPass(pipe::createPipeInsertComm({options.entry}));
  pipe::PipeScheduleOptions schedule = scheduleOptions(options);
  if (schedule.device.empty())
    schedule.device = "h100";
  pm.addPass(pipe::createPipeSchedule(schedule));
  pm.addPass(sched::createSchedVerify());
}

void pipewave::buildPipeCompileFrontEnd(OpPassManager &pm,
                                        const PipeCompileOptions &options) {
  pipe::PipePartitionOptions partition = partitionOptions(options);
  // No count and no markers: the whole model is one stage; one stage: the
  // markers are ignored.
  partition.defaultStages = 1;
  partition.ignoreMarkers = options.numStages == 1;
  // A training step runs every stage's backward: balance forward plus
  // backward.
  partition.backward = !options.inference;
  pm.addPass(pipe::createPipePartition(partition));
  pm.addPass(pipe::createPipeOutlineStages({options.entry}));

  // The stage functions compute one microbatch of one replica.
  pipe::PipeMicrobatchOptions microbatch;
  microbatch.microbatches = options.microbatches;
  microbatch.replicas = options.replicas;
  microbatch.entry = options.entry;
  pm.addPass(pipe::createPipeMicrobatch(microbatch));
  pm.addPass(pipe::createPipeInsertComm({options.entry}));

  pipe::PipeScheduleOptions schedule = scheduleOptions(options);
  schedule.replicas = options.replicas;
  schedule.forceForwardOnly = options.inference;
  // schedule=auto decides on the device the stages will run on.
  if (schedule.device.empty())
    schedule.device = defaultDevice(options.target);
  pm.addPass(pipe::createPipeSchedule(schedule));
  pm.addPass(sched::createSchedVerify());

  // Training functions, as the program needs them (none for a forward-only
  // step; split backward for zero-bubble schedules, which auto may pick).
  if (options.recompute != pipe::RecomputePolicy::None) {
    pipe::PipeRecomputeOptions recompute;
    recompute.policy = options.recompute;
    recompute.report = false;
    recompute.fromSchedule = true;
    pm.addPass(pipe::createPipeRecompute(recompute));
  }
  pipe::PipeAutodiffOptions autodiff;
  autodiff.fromSchedule = true;
  pm.addPass(pipe::createPipeAutodiff(autodiff));
}

LogicalResult pipewave::buildPipeCompileLowering(
    OpPassManager &pm, const PipeCompileOptions &options,
    function_ref<LogicalResult(const Twine &)> error) {
  switch (options.target) {
  case CompileTarget::CPU: {
    LowerToLLVMOptions lowering;
    lowering.matmul = options.matmul;
    lowering.workspace = options.workspace;
    lowering.accumulate = options.accumulate;
    lowering.fuseUpdates = options.fuseUpdates;
    ResolvedMatmulChoice choice;
    std::string message;
    if (failed(resolveMatmulChoice(options, choice, message)))
      return error(message);
    lowering.matmulChoice = choice.rules;
    buildLowerToLLVMPipeline(pm, lowering);
    return success();
  }
  case CompileTarget::CUDA: {
    LowerToGPUOptions lowering;
    lowering.cudaArch = options.cudaArch;
    lowering.precision = options.precision;
    lowering.format = options.cudaFormat;
    lowering.toolkit = options.cudaToolkit;
    std::string message;
    if (failed(checkLowerToGPUOptions(lowering, message)))
      return error(message);
    buildLowerToGPUPipeline(pm, lowering);
    return success();
  }
  }
  return error("unknown target");
}

LogicalResult pipewave::buildPipeCompilePipeline(
    OpPassManager &pm, const PipeCompileOptions &options,
    function_ref<LogicalResult(const Twine &)> error) {
  buildPipeCompileFrontEnd(pm, options);
  if (options.emit == CompileEmit::Pipe)
    return success();
  return buildPipeCompileLowering(pm, options, error);
}

void pipewave::registerPipelines() {
  PassPipelineRegistration<PipeTrainOptions>(
      "pipe-train",
      "Cuts the entry function into pipeline stages and emits a verified "
      "sched program (pipe-partition, pipe-outline-stages, pipe-insert-comm, "
      "pipe-schedule, sched-verify)",
      buildPipeTrainPipeline);
  registerPassPipeline(
      "pipe-compile",
      "Everything pipewave-compile runs on a TOSA model: pipe-partition, "
      "pipe-outline-stages, pipe-microbatch, pipe-insert-comm, pipe-schedule, "
      "sched-verify, pipe-recompute and pipe-autodiff as the schedule needs "
      "them, then (emit=mlir) the lowering of the stage code for the target",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> error) {
        PipeCompileOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        return buildPipeCompilePipeline(pm, options, [&](const Twine &msg) {
          return error("pipe-compile: " + msg);
        });
      },
      [](function_ref<void(const detail::PassOptions &)> handler) {
        handler(PipeCompileOptions());
      });
}
