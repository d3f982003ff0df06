//===- Pipelines.h - Registered pass pipelines --------------------*- C++
//-*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_PIPELINES_PIPELINES_H
#define PIPEWAVE_PIPELINES_PIPELINES_H

#include "pipewave/Dialect/Pipe/Transforms/PassEnums.h"

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace pipewave {

/// Options of the `pipe-train` pipeline.
struct PipeTrainOptions : public mlir::PassPipelineOptions<PipeTrainOptions> {
  Option<int64_t> numStages{*this, "num-stages",
                            llvm::cl::desc("Number of pipeline stages (0: from "
                                           "the pipe.split markers)"),
                            llvm::cl::init(0)};
  Option<pipe::PartitionStrategy> strategy{
      *this, "strategy",
      llvm::cl::desc("How to cut: auto, manual, uniform or balanced"),
      llvm::cl::init(pipe::PartitionStrategy::Auto),
      llvm::cl::values(
          clEnumValN(pipe::PartitionStrategy::Auto, "auto",
                     "manual with pipe.split markers, else balanced"),
          clEnumValN(pipe::PartitionStrategy::Manual, "manual",
                     "the pipe.split markers or pipe.stage attributes"),
          clEnumValN(pipe::PartitionStrategy::Uniform, "uniform",
                     "the same number of ops per stage"),
          clEnumValN(pipe::PartitionStrategy::Balanced, "balanced",
                     "the same cost per stage"))};
  Option<std::string> schedule{
      *this, "schedule",
      llvm::cl::desc("Schedule: gpipe, 1f1b, interleaved, hanayo, zb-h1, "
                     "zb-v, file or auto"),
      llvm::cl::init("1f1b")};
  Option<int64_t> microbatches{
      *this, "microbatches",
      llvm::cl::desc("Microbatches per step (0: pipe-schedule decides: the "
                     "entry's pipe.microbatches or 1; the file's for file, "
                     "the best for auto)"),
      llvm::cl::init(0)};
  Option<int64_t> chunks{*this, "chunks",
                         llvm::cl::desc("interleaved: stages per rank (0: 2)"),
                         llvm::cl::init(0)};
  Option<int64_t> waves{*this, "waves", llvm::cl::desc("hanayo: waves (0: 1)"),
                        llvm::cl::init(0)};
  Option<std::string> file{*this, "file",
                           llvm::cl::desc("file: the action list to read"),
                           llvm::cl::init("")};
  Option<std::string> device{
      *this, "device",
      llvm::cl::desc("auto: cpu, v100, a100, h100, h200 or a device .json "
                     "file"),
      llvm::cl::init("h100")};
  Option<std::string> memory{
      *this, "memory",
      llvm::cl::desc("auto: memory budget per device, e.g. 16GiB (default: "
                     "the device's)"),
      llvm::cl::init("")};
  Option<std::string> entry{*this, "entry",
                            llvm::cl::desc("Name of the entry function"),
                            llvm::cl::init("main")};
};

/// Appends the compiler flow from the TOSA graph to a verified sched program:
/// pipe-partition, pipe-outline-stages, pipe-insert-comm, pipe-schedule,
/// sched-verify.
void buildPipeTrainPipeline(mlir::OpPassManager &pm,
                            const PipeTrainOptions &options);

/// Registers the pipewave pipelines (`pipe-train`).
void registerPipelines();

/// Registers every pipewave pass and pipeline.
void registerAllPasses();

/// Adds the pipewave dialects to `registry`.
void registerAllDialects(mlir::DialectRegistry &registry);

} // namespace pipewave

#endif // PIPEWAVE_PIPELINES_PIPELINES_H
