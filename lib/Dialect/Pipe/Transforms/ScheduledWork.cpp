//===- ScheduledWork.cpp - What the sched.program asks of the stages ------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "ScheduledWork.h"

#include "pipewave/Dialect/Sched/IR/Sched.h"
#include "pipewave/Dialect/Sched/Utils/ProgramIR.h"

using namespace mlir;

FailureOr<pipewave::pipe::ScheduledWork>
pipewave::pipe::readScheduledWork(ModuleOp module, StringRef passName) {
  auto programs = module.getOps<sched::ProgramOp>();
  if (programs.empty())
    return module.emitError()
           << passName
           << ": from-schedule needs the sched.program that pipe-schedule "
              "emits; run pipe-schedule first";
  schedule::Program program = sched::readProgramOp(*programs.begin()).program;
  ScheduledWork work;
  work.trains = !program.forwardOnly;
  for (const schedule::RankProgram &rank : program.ranks)
    for (const schedule::Action &action : rank.actions)
      work.splitBackward |=
          action.kind == schedule::ActionKind::BackwardInput ||
          action.kind == schedule::ActionKind::BackwardWeight;
  return work;
}
