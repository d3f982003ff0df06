//===- MatmulUtils.h - Recognising the matmuls pipewave lowers --*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_CONVERSION_MATMULUTILS_H
#define PIPEWAVE_LIB_CONVERSION_MATMULUTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace pipewave {

/// True for a linalg.matmul or linalg.batch_matmul with the default indexing
/// maps whose operands are all f32 (tensors or buffers).
inline bool isPlainF32Matmul(mlir::linalg::LinalgOp op) {
  using namespace mlir;
  if (auto bmm = dyn_cast<linalg::BatchMatmulOp>(op.getOperation()))
    if (bmm.hasUserDefinedMaps())
      return false;
  if (auto mm = dyn_cast<linalg::MatmulOp>(op.getOperation()))
    if (mm.hasUserDefinedMaps())
      return false;
  if (!isa<linalg::BatchMatmulOp, linalg::MatmulOp>(op.getOperation()))
    return false;
  for (Value v : op->getOperands())
    if (!cast<ShapedType>(v.getType()).getElementType().isF32())
      return false;
  return true;
}

/// The linalg.fill of zero into `out` that `matmul` can absorb (beta = 0):
/// earlier in the same block, with only side-effect free ops in between;
/// null if there is none.
mlir::linalg::FillOp findZeroFill(mlir::Operation *matmul, mlir::Value out);

/// The buffer `operand` of `matmul` (on buffers) is a temporary that only a
/// linalg.transpose of `src` swapping the last two dimensions writes: the
/// temporary is allocated in the matmul's block, used by nothing but the
/// transpose, the matmul and its dealloc, and no op between the transpose and
/// the matmul writes a buffer `src` may alias. Then the matmul reads a
/// strided transposed view of `src` instead (memref.transpose, which the BLAS
/// helpers take as a transposed operand), and the copy, the temporary and its
/// dealloc are erased. Returns whether it folded.
bool foldOperandTranspose(mlir::Operation *matmul, mlir::OpOperand &operand);

/// The buffer `v` is a view of: through view-like ops and memref.transpose
/// (the transposed operands foldOperandTranspose makes) to an allocation or
/// a block argument.
mlir::Value rootBuffer(mlir::Value v);

/// Whether `op` may write the buffer `buffer` is a view of (or one that may
/// be the same: two function arguments, unless one is an out-parameter).
/// Unknown effects count as writes.
bool mayWriteBuffer(mlir::Operation *op, mlir::Value buffer);

/// The element-wise op after a matmul (on buffers) that its call can apply
/// as it stores the product, writing `out` instead of the product:
///  - BiasClamp: `generic` adds a per-column bias (`operand`) to a rank-2
///    product and clamps it (minimumf with `hi`, then maximumf with `lo`;
///    +inf and -inf where the op has no such step): a linear layer and its
///    ReLU;
///  - PositiveMask: `generic` keeps the product where `operand` (of the
///    product's shape) is > 0 and writes +0 elsewhere: ReLU's backward.
/// The product's buffer is an allocation zeroed by `fill` that nothing else
/// reads, directly or through the rank-2 `views` of a batched product.
struct MatmulEpilogue {
  enum Kind { BiasClamp, PositiveMask };
  Kind kind = BiasClamp;
  mlir::linalg::FillOp fill;
  mlir::linalg::GenericOp generic;
  mlir::Value operand, out;
  float lo = 0.0f, hi = 0.0f;
  llvm::SmallVector<mlir::Operation *> views;
};

/// The epilogue `matmul` (f32, on buffers) can absorb, if any: see
/// MatmulEpilogue.cpp for the pattern.
std::optional<MatmulEpilogue> findMatmulEpilogue(mlir::linalg::LinalgOp matmul);

} // namespace pipewave

#endif // PIPEWAVE_LIB_CONVERSION_MATMULUTILS_H
