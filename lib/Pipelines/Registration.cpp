//===- Registration.cpp - Registering pipewave dialects and passes --------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Conversion/Passes.h"
#include "pipewave/Conversion/StableHLOToTosa/StableHLOToTosa.h"
#include "pipewave/Dialect/Pipe/Transforms/Passes.h"
#include "pipewave/Dialect/Sched/Transforms/Passes.h"
#include "pipewave/Dialect/StableHLO/IR/Stablehlo.h"
#include "pipewave/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"

void pipewave::registerAllPasses() {
  pipe::registerPipePasses();
  sched::registerSchedPasses();
  registerPipelines();
  registerConversionPasses();
  registerStableHLOToTosaPasses();
}

void pipewave::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<pipe::PipeDialect, sched::SchedDialect,
                  stablehlo::StableHLODialect, chlo::ChloDialect>();
}
