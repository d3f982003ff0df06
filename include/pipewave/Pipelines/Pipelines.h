//===- Pipelines.h - Registered pass pipelines --------------------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_PIPELINES_PIPELINES_H
#define PIPEWAVE_PIPELINES_PIPELINES_H

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
  Option<std::string> strategy{
      *this, "strategy",
      llvm::cl::desc("How to cut: auto, manual, uniform or balanced"),
      llvm::cl::init("auto")};
  Option<std::string> schedule{*this, "schedule",
                               llvm::cl::desc("Schedule: gpipe or 1f1b"),
                               llvm::cl::init("1f1b")};
  Option<int64_t> microbatches{*this, "microbatches",
                               llvm::cl::desc("Microbatches per step"),
                               llvm::cl::init(1)};
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
