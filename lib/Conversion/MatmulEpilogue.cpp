//===- MatmulEpilogue.cpp - A bias and clamps after a matmul --------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Recognises, on buffers, the element-wise op that follows a linear layer's
// product (TOSA's matmul, add of the bias and clamp, fused by
// pipe-fuse-elementwise):
//
//   linalg.fill 0 -> %c ; linalg.(batch_)matmul ... outs(%c)
//   %v = memref.collapse_shape %c          (the batched form's unit batch)
//   linalg.generic ins(%v, %bias) outs(%h) {
//     %0 = arith.addf %in, %b ; %1 = arith.minimumf %0, HI
//     %2 = arith.maximumf %1, LO ; linalg.yield %2 }
//
// so that pipe-matmul-to-blas can write the product through the epilogue
// straight into %h (lib/Target/CPU/Epilogue.h computes the same operations
// in the same order) and drop %c.
//
//===----------------------------------------------------------------------===//

#include "MatmulUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace pipewave {

namespace {

/// The f32 constant `v` holds, if it is one and not NaN.
std::optional<float> clampConstant(Value v) {
  FloatAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.getType().isF32())
    return std::nullopt;
  float value = attr.getValue().convertToFloat();
  if (std::isnan(value))
    return std::nullopt;
  return value;
}

/// Whether `body` is `addf(in, bias)` [`minimumf(., HI)`] [`maximumf(., LO)`]
/// yielded, in that order; fills `epilogue`'s clamps.
bool matchBody(Block &body, MatmulEpilogue &epilogue) {
  Value in = body.getArgument(0), bias = body.getArgument(1);
  auto ops = body.without_terminator();
  auto it = ops.begin();
  if (it == ops.end())
    return false;
  auto add = dyn_cast<arith::AddFOp>(*it);
  if (!add || !((add.getLhs() == in && add.getRhs() == bias) ||
                (add.getLhs() == bias && add.getRhs() == in)))
    return false;
  Value last = add.getResult();
  ++it;
  epilogue.hi = std::numeric_limits<float>::infinity();
  epilogue.lo = -std::numeric_limits<float>::infinity();
  if (it != ops.end())
    if (auto min = dyn_cast<arith::MinimumFOp>(*it);
        min && min.getLhs() == last) {
      std::optional<float> hi = clampConstant(min.getRhs());
      if (!hi)
        return false;
      epilogue.hi = *hi;
      last = min.getResult();
      ++it;
    }
  if (it != ops.end())
    if (auto max = dyn_cast<arith::MaximumFOp>(*it);
        max && max.getLhs() == last) {
      std::optional<float> lo = clampConstant(max.getRhs());
      if (!lo)
        return false;
      epilogue.lo = *lo;
      last = max.getResult();
      ++it;
    }
  // Every value of the body is used only by the next step (or the yield).
  for (Operation &op : ops)
    if (!op.getResult(0).hasOneUse())
      return false;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  return it == ops.end() && yield->getNumOperands() == 1 &&
         yield->getOperand(0) == last;
}

/// Whether `generic` is the element-wise op above on `view` (rank 2, all
/// parallel, the product at the identity map, a bias broadcast over rows,
/// a contiguous result of the same shape).
bool matchGeneric(linalg::GenericOp generic, Value view,
                  MatmulEpilogue &epilogue) {
  if (generic.getNumDpsInputs() != 2 || generic.getNumDpsInits() != 1 ||
      generic.getNumResults() != 0 || generic.getNumLoops() != 2 ||
      generic.getNumParallelLoops() != 2 ||
      generic.getDpsInputOperand(0)->get() != view)
    return false;
  MLIRContext *ctx = generic.getContext();
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(2, ctx);
  if (maps[0] != identity || maps[2] != identity)
    return false;
  Value bias = generic.getDpsInputOperand(1)->get();
  auto biasType = dyn_cast<MemRefType>(bias.getType());
  auto viewType = cast<MemRefType>(view.getType());
  if (!biasType || !biasType.getElementType().isF32() ||
      !biasType.hasStaticShape() || !viewType.hasStaticShape())
    return false;
  int64_t n = viewType.getDimSize(1);
  AffineExpr d1 = getAffineDimExpr(1, ctx);
  bool rowVector =
      biasType.getRank() == 2 && biasType.getDimSize(0) == 1 &&
      biasType.getDimSize(1) == n &&
      maps[1] == AffineMap::get(2, 0, {getAffineConstantExpr(0, ctx), d1}, ctx);
  bool vector = biasType.getRank() == 1 && biasType.getDimSize(0) == n &&
                maps[1] == AffineMap::get(2, 0, {d1}, ctx);
  if (!rowVector && !vector)
    return false;
  Value out = generic.getDpsInitOperand(0)->get();
  auto outType = dyn_cast<MemRefType>(out.getType());
  if (!outType || outType.getShape() != viewType.getShape() ||
      !outType.getLayout().isIdentity() || !outType.getElementType().isF32())
    return false;
  // The result is a fresh buffer or a result argument of the function, so
  // it is none of the product's operands.
  auto arg = dyn_cast<BlockArgument>(out);
  bool resultArg = false;
  if (arg)
    if (auto fn = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()))
      resultArg = arg.getOwner() == &fn.getBody().front() &&
                  fn.getArgAttr(arg.getArgNumber(), "bufferize.result");
  if (!resultArg && !out.getDefiningOp<memref::AllocOp>())
    return false;
  epilogue.generic = generic;
  epilogue.bias = bias;
  epilogue.out = out;
  return matchBody(*generic.getBody(), epilogue);
}

} // namespace

std::optional<MatmulEpilogue> findMatmulEpilogue(linalg::LinalgOp matmul) {
  Value c = matmul.getDpsInitOperand(0)->get();
  auto alloc = c.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != matmul->getBlock())
    return std::nullopt;
  auto cType = cast<MemRefType>(c.getType());
  // The product as the element-wise op reads it: the buffer itself, or its
  // rank-2 view without the unit batch.
  Value view = c;
  MatmulEpilogue epilogue;
  for (Operation *user : c.getUsers()) {
    if (user == matmul.getOperation() || isa<memref::DeallocOp>(user))
      continue;
    if (auto fill = dyn_cast<linalg::FillOp>(user)) {
      if (fill != findZeroFill(matmul, c))
        return std::nullopt;
      continue;
    }
    auto collapse = dyn_cast<memref::CollapseShapeOp>(user);
    if (collapse && cType.getRank() == 3 && cType.getDimSize(0) == 1 &&
        view == c && collapse.getResultType().getRank() == 2) {
      view = collapse.getResult();
      epilogue.views.push_back(collapse);
      continue;
    }
    // The rank-2 product's element-wise op (checked below).
    if (!isa<linalg::GenericOp>(user) || cType.getRank() != 2)
      return std::nullopt;
  }
  if (!findZeroFill(matmul, c))
    return std::nullopt;
  linalg::GenericOp generic;
  for (Operation *user : view.getUsers()) {
    if (auto g = dyn_cast<linalg::GenericOp>(user); g && !generic)
      generic = g;
    else if (view != c || isa<linalg::GenericOp>(user))
      return std::nullopt;
  }
  if (!generic || generic->getBlock() != matmul->getBlock() ||
      !matmul->isBeforeInBlock(generic) ||
      !matchGeneric(generic, view, epilogue))
    return std::nullopt;
  // Between the two, only ops that touch no memory (views, constants) and
  // allocations: the product's operands and the result stay as they were.
  for (Operation *op = matmul->getNextNode(); op != generic.getOperation();
       op = op->getNextNode())
    if (!isMemoryEffectFree(op) && !isa<memref::AllocOp>(op))
      return std::nullopt;
  return epilogue;
}

} // namespace pipewave
