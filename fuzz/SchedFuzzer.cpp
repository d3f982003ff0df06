//===- SchedFuzzer.cpp - libFuzzer target for sched IR and sched-verify ---===//
//
// Part of the pipewave project.
//
// Every input is MLIR text in the sched dialect (what `pipewave-opt
// --sched-export` and a user's hand-written schedules look like): it is
// parsed, verified and, when it parses, checked by sched-verify, which reads
// every sched.program back into a schedule Program and proves it. Parse
// errors and sched-verify diagnostics are expected; a crash, a sanitizer
// report or an assertion is a bug.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Sched/IR/Sched.h"
#include "pipewave/Dialect/Sched/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  context.loadDialect<pipewave::sched::SchedDialect, mlir::func::FuncDialect>();
  context.getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
  // A NUL-terminated copy, as the tools read files (MLIR's lexer relies on
  // the terminator).
  std::string text(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(
          text, mlir::ParserConfig(&context), "fuzz.sched.mlir");
  if (!module)
    return 0;
  mlir::PassManager pm(&context);
  pm.addPass(pipewave::sched::createSchedVerify());
  (void)pm.run(*module);
  return 0;
}
