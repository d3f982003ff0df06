//===- ProgramIR.h - sched IR <-> schedule::Program -------------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The schedule generators, verifier and simulator are plain C++ working on
// schedule::Program; these functions move programs in and out of the IR.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_DIALECT_SCHED_UTILS_PROGRAMIR_H
#define PIPEWAVE_DIALECT_SCHED_UTILS_PROGRAMIR_H

#include "pipewave/Dialect/Sched/IR/Sched.h"
#include "pipewave/Schedule/Program.h"

namespace pipewave::sched {

/// Builds a sched.program for `program` at the builder's insertion point.
ProgramOp buildProgramOp(mlir::OpBuilder &builder, mlir::Location loc,
                         const schedule::Program &program);

/// A program read from the IR, with the operation of every action so that
/// diagnostics can point at it.
struct ProgramFromIR {
  schedule::Program program;
  /// ops[rank][i] is the operation of program.ranks[rank].actions[i].
  std::vector<std::vector<mlir::Operation *>> ops;
  std::vector<RankOp> rankOps;
};

/// Reads a (verifier-valid) sched.program.
ProgramFromIR readProgramOp(ProgramOp op);

} // namespace pipewave::sched

#endif // PIPEWAVE_DIALECT_SCHED_UTILS_PROGRAMIR_H
