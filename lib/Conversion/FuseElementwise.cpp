//===- FuseElementwise.cpp - pipe-fuse-elementwise ------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Element-wise fusion and reshape propagation of the stage lowering: the
// pattern set of upstream linalg-fuse-elementwise-ops, under a control
// function that keeps reshapes away from named contractions, so that the
// matmul lowerings (pipe-matmul-vectorize, pipe-matmul-to-blas,
// pipe-matmul-to-cublas) still find them as linalg.batch_matmul and
// linalg.matmul.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace pipewave {
#define GEN_PASS_DEF_PIPEFUSEELEMENTWISE
#include "pipewave/Conversion/Passes.h.inc"
} // namespace pipewave

using namespace mlir;
using namespace pipewave;

namespace {

/// Whether `op` is a named contraction (linalg.matmul, linalg.batch_matmul,
/// ...): folding a reshape into it would make it a linalg.generic.
bool isNamedContraction(Operation *op) {
  return op && isa<linalg::ContractionOpInterface>(op);
}

/// The fusion control of every pattern: the upstream pass's (the producer
/// has this one use), and no named contraction on either side. A pattern
/// that folds a tensor.collapse_shape into its consumer asks with the
/// consumer's operand; one that folds a tensor.expand_shape into its
/// producer asks with the reshape's source operand.
bool allowFusion(OpOperand *fusedOperand) {
  Operation *producer = fusedOperand->get().getDefiningOp();
  if (!producer || !producer->hasOneUse())
    return false;
  return !isNamedContraction(producer) &&
         !isNamedContraction(fusedOperand->getOwner());
}

struct PipeFuseElementwisePass
    : public pipewave::impl::PipeFuseElementwiseBase<PipeFuseElementwisePass> {
  using PipeFuseElementwiseBase::PipeFuseElementwiseBase;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(patterns, allowFusion);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, allowFusion);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, ctx);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    ctx->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(
        patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, allowFusion);
    // Top-down, as upstream (compile time).
    (void)applyPatternsGreedily(getOperation(), std::move(patterns),
                                GreedyRewriteConfig().setUseTopDownTraversal());
  }
};

} // namespace
