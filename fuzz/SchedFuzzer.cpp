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
// Building an MLIR context and loading the dialects takes most of an
// input's time, so one context (and one pass manager) serves
// kInputsPerContext inputs before it is rebuilt: what an input leaves in
// it (uniqued types, attributes and names) means nothing to the next, and
// the rebuild bounds its memory. A reproducer run alone gets a fresh
// context.
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
#include <memory>
#include <string>

namespace {
constexpr int kInputsPerContext = 1000;

struct Session {
  mlir::MLIRContext context{mlir::MLIRContext::Threading::DISABLED};
  mlir::PassManager pm{&context};
  int inputs = 0;

  Session() {
    context
        .loadDialect<pipewave::sched::SchedDialect, mlir::func::FuncDialect>();
    context.getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
    pm.addPass(pipewave::sched::createSchedVerify());
  }
};
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static std::unique_ptr<Session> session;
  if (!session || session->inputs >= kInputsPerContext)
    session = std::make_unique<Session>();
  ++session->inputs;
  // A NUL-terminated copy, as the tools read files (MLIR's lexer relies on
  // the terminator).
  std::string text(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(
          text, mlir::ParserConfig(&session->context), "fuzz.sched.mlir");
  if (!module)
    return 0;
  (void)session->pm.run(*module);
  return 0;
}
