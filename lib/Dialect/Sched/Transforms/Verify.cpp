//===- Verify.cpp - sched-verify: prove programs correct ------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Runs the schedule verifier of lib/Schedule on every sched.program and turns
// its findings into diagnostics on the offending actions.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Schedule/Verify.h"
#include "pipewave/Dialect/Sched/Transforms/Passes.h"
#include "pipewave/Dialect/Sched/Utils/ProgramIR.h"

namespace pipewave::sched {
#define GEN_PASS_DEF_SCHEDVERIFY
#include "pipewave/Dialect/Sched/Transforms/Passes.h.inc"
} // namespace pipewave::sched

using namespace mlir;
using namespace pipewave;
using namespace pipewave::sched;

namespace {

struct SchedVerifyPass : public sched::impl::SchedVerifyBase<SchedVerifyPass> {
  using SchedVerifyBase::SchedVerifyBase;

  void runOnOperation() override {
    bool failedAny = false;
    getOperation()->walk([&](ProgramOp programOp) {
      ProgramFromIR read = readProgramOp(programOp);
      for (const schedule::Diagnostic &diag : schedule::verify(read.program)) {
        Operation *at = programOp;
        if (diag.rank >= 0 && diag.rank < static_cast<int>(read.ops.size())) {
          at = read.rankOps[diag.rank];
          if (diag.actionIndex >= 0 &&
              diag.actionIndex < static_cast<int>(read.ops[diag.rank].size()))
            at = read.ops[diag.rank][diag.actionIndex];
        }
        at->emitError() << "sched-verify: " << diag.message;
        failedAny = true;
      }
    });
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
