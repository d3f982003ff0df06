//===- pipewave-opt.cpp - The pipewave optimizer driver --------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// An mlir-opt with the pipewave dialects, passes and pipelines, plus the
// upstream dialects and passes a model and its lowering use.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Pipelines/Pipelines.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  pipewave::registerAllPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  pipewave::registerAllDialects(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "pipewave optimizer driver\n", registry));
}
