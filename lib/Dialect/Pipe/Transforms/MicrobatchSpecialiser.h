//===- MicrobatchSpecialiser.h - Stages for one microbatch ------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The rewriting behind pipe-microbatch (Microbatch.cpp, where the kinds of
// values are described): re-specialises stage functions, one at a time in
// call order, for one of M microbatches.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_DIALECT_PIPE_TRANSFORMS_MICROBATCHSPECIALISER_H
#define PIPEWAVE_LIB_DIALECT_PIPE_TRANSFORMS_MICROBATCHSPECIALISER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <map>

namespace pipewave::pipe::microbatch {

/// What a value carries: the batch, a partial sum over the batch, or
/// neither.
enum class Kind { None, Batch, Partial };

/// Specialises stage functions for one of `microbatches` microbatches,
/// tracking the kind of every value it has seen.
class Specialiser {
public:
  explicit Specialiser(int64_t microbatches) : microbatches(microbatches) {}

  /// Specialises `fn` given the kinds of its arguments; returns the kinds of
  /// its results.
  mlir::FailureOr<llvm::SmallVector<Kind>> run(mlir::func::FuncOp fn,
                                               llvm::ArrayRef<Kind> argKinds);

  /// For Partial values: the reduction that made them, for messages.
  llvm::DenseMap<mlir::Value, mlir::Operation *> origin;

private:
  /// The kind of `v` (None for a value not seen).
  Kind kindOf(mlir::Value v) const;

  /// The microbatch type of a batch-carrying `type`, or an error at `op`.
  mlir::FailureOr<mlir::Type> divide(mlir::Operation *op, mlir::Type type,
                                     llvm::StringRef what);

  /// Replaces the shape operand `operandNo` of `op` by a tosa.const_shape
  /// holding `values`, created once per function at its start.
  void setShapeOperand(mlir::Operation *op, unsigned operandNo,
                       llvm::ArrayRef<int64_t> values);

  /// Constant values of a tosa.const_shape operand.
  static mlir::FailureOr<llvm::SmallVector<int64_t>> constShape(mlir::Value v);

  /// Checks the result types of `op` against its shape inference.
  mlir::LogicalResult checkInferred(mlir::Operation *op);

  /// Verifies `op` after retyping; its own diagnostics become a note.
  mlir::LogicalResult verifyRetyped(mlir::Operation *op);

  /// Handles an operation one of whose operands carries the batch.
  mlir::LogicalResult rewriteBatchOp(mlir::Operation *op);

  /// The batch dimension of a batch-carrying value (already retyped; the
  /// first non-unit dimension of its global type, which is also where the
  /// microbatch type keeps it).
  int64_t batchDimOf(mlir::Value v);

  /// Records the batch position of every batch value before retyping.
  void noteBatchDims(mlir::Operation *op);

  /// Handles an operation one of whose operands is a partial sum.
  mlir::LogicalResult rewritePartialOp(mlir::Operation *op,
                                       llvm::ArrayRef<Kind> operandKinds);

  int64_t microbatches;
  llvm::DenseMap<mlir::Value, Kind> kinds;
  std::map<std::pair<mlir::Block *, llvm::SmallVector<int64_t>>, mlir::Value>
      shapeCache;
  llvm::DenseMap<mlir::Value, int64_t> globalBatchDim;
};

} // namespace pipewave::pipe::microbatch

#endif // PIPEWAVE_LIB_DIALECT_PIPE_TRANSFORMS_MICROBATCHSPECIALISER_H
