//===- MatmulVectorize.cpp - pipe-matmul-vectorize ------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Cache and register tiling of f32 matmuls on tensors, then vectorization
// of the register tile; pipe-hoist-vector-transfers keeps the accumulator in
// registers after bufferization. The alternative to BLAS calls, measured in
// bench/stage-compute.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Conversion/MatmulChoice.h"
#include "pipewave/Conversion/Passes.h"

#include "MatmulUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace pipewave {
#define GEN_PASS_DEF_PIPEMATMULVECTORIZE
#define GEN_PASS_DEF_PIPEHOISTVECTORTRANSFERS
#define GEN_PASS_DEF_PIPELOWERVECTORS
#include "pipewave/Conversion/Passes.h.inc"
} // namespace pipewave

using namespace mlir;
using namespace pipewave;

namespace {

/// The largest divisor of `size` not above `target` (at least 1).
int64_t fit(int64_t size, int64_t target) {
  for (int64_t t = std::min(size, std::max<int64_t>(target, 1)); t > 1; --t)
    if (size % t == 0)
      return t;
  return 1;
}

/// Tiles `op` with `sizes` (0: untiled) in loop order `interchange`; returns
/// the tiled op, or null on failure (the IR is unchanged then). `loops` gets
/// the generated loops, outermost first.
Operation *tile(RewriterBase &rewriter, Operation *op, ArrayRef<int64_t> sizes,
                ArrayRef<int64_t> interchange,
                SmallVectorImpl<LoopLikeOpInterface> *loops = nullptr) {
  scf::SCFTilingOptions options;
  SmallVector<OpFoldResult> tileSizes;
  for (int64_t s : sizes)
    tileSizes.push_back(rewriter.getIndexAttr(s));
  options.setTileSizes(tileSizes);
  if (!interchange.empty())
    options.setInterchange(interchange);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> result =
      scf::tileUsingSCF(rewriter, cast<TilingInterface>(op), options);
  if (failed(result) || result->tiledOps.size() != 1)
    return nullptr;
  rewriter.replaceOp(op, result->replacements);
  if (loops)
    loops->assign(result->loops.begin(), result->loops.end());
  return result->tiledOps.front();
}

/// Whether `v` is a copy of a tensor with its last two dimensions swapped:
/// a linalg.transpose (what pipe-matmul-to-blas folds into a transposed
/// BLAS operand), or a linalg.generic that only does that.
bool isTransposedCopy(Value v) {
  if (auto transpose = v.getDefiningOp<linalg::TransposeOp>())
    return swapsLastTwoAxes(transpose.getPermutation());
  auto generic = v.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return false;
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  if (yield.getNumOperands() != 1 ||
      yield.getOperand(0) != generic.getBody()->getArgument(0))
    return false;
  AffineMap in = generic.getIndexingMapsArray()[0];
  AffineMap out = generic.getIndexingMapsArray()[1];
  if (!out.isIdentity() || !in.isPermutation())
    return false;
  SmallVector<int64_t> perm;
  for (AffineExpr e : in.getResults())
    perm.push_back(cast<AffineDimExpr>(e).getPosition());
  return swapsLastTwoAxes(perm);
}

/// The class of a plain matmul on tensors with static loop `ranges`
/// ([b,] m, n, k).
MatmulClass classOf(linalg::LinalgOp op, ArrayRef<int64_t> ranges) {
  size_t m = ranges.size() - 3;
  MatmulClass cls;
  cls.layout = matmulLayout(isTransposedCopy(op.getDpsInputs()[0]),
                            isTransposedCopy(op.getDpsInputs()[1]));
  cls.shape = classifyMatmulShape(ranges[m], ranges[m + 1], ranges[m + 2]);
  return cls;
}

struct PipeMatmulVectorizePass
    : public pipewave::impl::PipeMatmulVectorizeBase<PipeMatmulVectorizePass> {
  using PipeMatmulVectorizeBase::PipeMatmulVectorizeBase;

  void runOnOperation() override {
    // Without rules every matmul is a candidate.
    std::optional<MatmulChoice> table;
    if (!choice.empty()) {
      table.emplace();
      std::string error;
      if (!table->apply(std::vector<std::string>(choice.begin(), choice.end()),
                        error)) {
        getOperation().emitError() << "pipe-matmul-vectorize: " << error;
        return signalPassFailure();
      }
    }
    SmallVector<linalg::LinalgOp> matmuls;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!isPlainF32Matmul(op) || !op.hasPureTensorSemantics() ||
          op.hasDynamicShape())
        return;
      if (table && table->kernel(classOf(op, op.getStaticLoopRanges())) !=
                       MatmulKernel::Vector)
        return;
      matmuls.push_back(op);
    });

    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : matmuls) {
      bool batched = isa<linalg::BatchMatmulOp>(op);
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      // Iteration dims: [b,] m, n, k.
      unsigned m = batched ? 1 : 0, n = m + 1, k = m + 2;
      int64_t sm = ranges[m], sn = ranges[n], sk = ranges[k];
      int64_t tmr = fit(sm, mr), tnr = fit(sn, nr);
      int64_t tmc = fit(sm, std::max(mc.getValue(), tmr));
      int64_t tnc = fit(sn, std::max(nc.getValue(), tnr));
      int64_t tkc = fit(sk, kc);
      // Register tiles must divide cache tiles.
      tmc = tmc / tmr * tmr;
      tnc = tnc / tnr * tnr;
      if (sm % tmc != 0 || sn % tnc != 0 || tnr < minNr)
        continue;

      auto dims = [&](int64_t b, int64_t vm, int64_t vn, int64_t vk) {
        SmallVector<int64_t> v;
        if (batched)
          v.push_back(b);
        v.append({vm, vn, vk});
        return v;
      };
      SmallVector<int64_t> cacheOrder = batched
                                            ? SmallVector<int64_t>{0, 2, 3, 1}
                                            : SmallVector<int64_t>{1, 2, 0};
      Operation *cur = tile(rewriter, op, dims(1, tmc, tnc, tkc), cacheOrder);
      if (!cur)
        continue;
      cur = tile(rewriter, cur, dims(0, tmr, tnr, 0), {});
      if (!cur)
        continue;
      cur = tile(rewriter, cur, dims(0, 0, 0, 1), {});
      if (!cur)
        continue;
      rewriter.setInsertionPoint(cur);
      FailureOr<linalg::VectorizationResult> vectorized = linalg::vectorize(
          rewriter, cur, /*inputVectorSizes=*/{}, /*inputScalableVecDims=*/{},
          /*vectorizeNDExtract=*/false, /*flatten1DDepthwiseConv=*/false,
          /*assumeDynamicDimsMatchVecSizes=*/false,
          /*createNamedContraction=*/true);
      if (failed(vectorized))
        continue;
      if (vectorized->replacements.empty())
        rewriter.eraseOp(cur);
      else
        rewriter.replaceOp(cur, vectorized->replacements);
    }

    // The accumulator tile: read before the k loop, carried in a vector
    // register, written after it. Folding first makes the transfers'
    // indices shared, loop-invariant constants. Each hoisting step moves one
    // level of subset ops (the full slice of the tile, then the transfers).
    (void)applyPatternsGreedily(getOperation(),
                                RewritePatternSet(&getContext()));
    SmallVector<scf::ForOp> kLoops;
    getOperation().walk([&](scf::ForOp loop) {
      if (!loop.getBody()->getOps<vector::ContractionOp>().empty())
        kLoops.push_back(loop);
    });
    for (scf::ForOp loop : kLoops) {
      LoopLikeOpInterface current = loop;
      for (int i = 0; i < 3; ++i)
        current = hoistLoopInvariantSubsets(rewriter, current);
    }
  }
};

struct PipeHoistVectorTransfersPass
    : public pipewave::impl::PipeHoistVectorTransfersBase<
          PipeHoistVectorTransfersPass> {
  void runOnOperation() override {
    linalg::hoistRedundantVectorTransfers(getOperation());
  }
};

struct PipeLowerVectorsPass
    : public pipewave::impl::PipeLowerVectorsBase<PipeLowerVectorsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // Phases, as the patterns of one phase can undo those of another.
    auto apply = [&](function_ref<void(RewritePatternSet &)> populate) {
      RewritePatternSet patterns(ctx);
      populate(patterns);
      return applyPatternsGreedily(getOperation(), std::move(patterns));
    };
    if (failed(apply([&](RewritePatternSet &patterns) {
          vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
          vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
          vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
        })) ||
        failed(apply([&](RewritePatternSet &patterns) {
          vector::populateVectorContractLoweringPatterns(
              patterns, vector::VectorContractLowering::OuterProduct);
          vector::populateVectorTransferPermutationMapLoweringPatterns(
              patterns);
          vector::populateVectorMultiReductionLoweringPatterns(
              patterns, vector::VectorMultiReductionLowering::InnerParallel);
        })) ||
        failed(apply([&](RewritePatternSet &patterns) {
          vector::populateVectorOuterProductLoweringPatterns(patterns);
          vector::populateVectorTransposeLoweringPatterns(
              patterns, vector::VectorTransposeLowering::EltWise);
          vector::populateVectorBroadcastLoweringPatterns(patterns);
          vector::populateVectorShapeCastLoweringPatterns(patterns);
        })) ||
        failed(apply([&](RewritePatternSet &patterns) {
          vector::populateVectorTransferLoweringPatterns(patterns,
                                                         /*maxTransferRank=*/1);
        })))
      return signalPassFailure();
  }
};

} // namespace
