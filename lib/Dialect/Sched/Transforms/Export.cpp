//===- Export.cpp - sched-export: write a program as an action list -------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Sched/Transforms/Passes.h"
#include "pipewave/Dialect/Sched/Utils/ProgramIR.h"
#include "pipewave/Schedule/ActionList.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

namespace pipewave::sched {
#define GEN_PASS_DEF_SCHEDEXPORT
#include "pipewave/Dialect/Sched/Transforms/Passes.h.inc"
} // namespace pipewave::sched

using namespace mlir;
using namespace pipewave;
using namespace pipewave::sched;

namespace {

struct SchedExportPass : public sched::impl::SchedExportBase<SchedExportPass> {
  using SchedExportBase::SchedExportBase;

  void runOnOperation() override {
    SmallVector<ProgramOp> programs;
    getOperation()->walk([&](ProgramOp op) { programs.push_back(op); });
    if (programs.empty()) {
      getOperation()->emitError()
          << "sched-export: no sched.program to export; run pipe-schedule "
             "first";
      return signalPassFailure();
    }
    if (programs.size() > 1) {
      programs[1].emitError()
          << "sched-export: found " << programs.size()
          << " sched.program operations; an action list holds one";
      return signalPassFailure();
    }
    std::string text =
        schedule::formatActionList(readProgramOp(programs.front()).program);
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> out = openOutputFile(file, &error);
    if (!out) {
      programs.front().emitError()
          << "sched-export: cannot write '" << file << "': " << error;
      return signalPassFailure();
    }
    out->os() << text;
    out->os().flush();
    out->keep();
    markAllAnalysesPreserved();
  }
};

} // namespace
