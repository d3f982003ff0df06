//===- BroadcastCleanup.cpp - Let TOSA broadcast instead of tosa.tile -----===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// `broadcast_in_dim` becomes reshape + `tosa.tile` because stablehlo operands
// have the full shape. Where a tile only feeds broadcasting elementwise TOSA
// operations whose other operands already have the full size, the tile is
// dropped and TOSA broadcasts the size-1 dimensions: less work, and no
// batch-sized copy of a bias or constant, which `pipe-microbatch` could not
// split.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Conversion/StableHLOToTosa/StableHLOToTosa.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace {

struct UntileOperand : RewritePattern {
  UntileOperand(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    bool broadcasts = op->hasTrait<OpTrait::ResultsBroadcastableShape>() ||
                      isa<tosa::MulOp, tosa::SelectOp>(op);
    if (!broadcasts || op->getNumResults() != 1 ||
        op->getDialect()->getNamespace() != "tosa")
      return failure();
    auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!result)
      return failure();
    for (OpOperand &use : op->getOpOperands()) {
      auto tile = use.get().getDefiningOp<tosa::TileOp>();
      if (!tile)
        continue;
      Value input = tile.getInput1();
      // The result shape must stay what it is without the tile.
      SmallVector<int64_t> shape(result.getRank(), 1);
      for (OpOperand &other : op->getOpOperands()) {
        auto t = dyn_cast<RankedTensorType>(
            (&other == &use ? input : other.get()).getType());
        if (!t || t.getRank() != result.getRank())
          continue; // not a broadcast operand (the shift of tosa.mul)
        for (auto [s, d] : llvm::zip(shape, t.getShape()))
          s = std::max(s, d);
      }
      if (ArrayRef<int64_t>(shape) != result.getShape())
        continue;
      rewriter.modifyOpInPlace(op, [&] { use.set(input); });
      return success();
    }
    return failure();
  }
};

/// `unary(tile(x))` -> `tile(unary(x))`: the tile moves towards its use,
/// where UntileOperand can drop it (as in `divide %x, broadcast(%c)`, which
/// becomes `mul(x, reciprocal(tile(c)))`).
struct HoistTileThroughUnary : RewritePattern {
  HoistTileThroughUnary(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!op->hasTrait<OpTrait::tosa::TosaElementwiseOperator>() ||
        op->getNumOperands() != 1 || op->getNumResults() != 1 ||
        op->getDialect()->getNamespace() != "tosa")
      return failure();
    auto tile = op->getOperand(0).getDefiningOp<tosa::TileOp>();
    if (!tile)
      return failure();
    Value input = tile.getInput1();
    auto inputType = cast<RankedTensorType>(input.getType());
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    OperationState state(op->getLoc(), op->getName());
    state.addOperands(input);
    state.addTypes(inputType.clone(resultType.getElementType()));
    state.addAttributes(op->getAttrs());
    Operation *inner = rewriter.create(state);
    rewriter.replaceOpWithNewOp<tosa::TileOp>(
        op, resultType, inner->getResult(0), tile.getMultiples());
    return success();
  }
};

} // namespace

void pipewave::populateStablehloToTosaCleanupPatterns(
    RewritePatternSet &patterns) {
  patterns.add<UntileOperand, HoistTileThroughUnary>(patterns.getContext());
}
