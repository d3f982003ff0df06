//===- pipewave-opt.cpp - The pipewave optimizer driver -------------------===//
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

#ifdef PIPEWAVE_INCLUDE_TESTS
namespace pipewave::test {
void registerTestPasses();
} // namespace pipewave::test
#endif

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  pipewave::registerAllPasses();
#ifdef PIPEWAVE_INCLUDE_TESTS
  // Test-only passes (test/lib), when the test suite is built.
  pipewave::test::registerTestPasses();
#endif

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  pipewave::registerAllDialects(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "pipewave optimizer driver\n", registry));
}
