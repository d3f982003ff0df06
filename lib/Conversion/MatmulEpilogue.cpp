//===- MatmulEpilogue.cpp - The element-wise op after a matmul ------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Recognises, on buffers, the element-wise op that follows a layer's
// product, so that pipe-matmul-to-blas can write the product through it
// straight into the op's result and drop the product's buffer:
//
//   linalg.fill 0 -> %c ; linalg.(batch_)matmul ... outs(%c)
//   %v = memref.collapse_shape %c          (the batched form's unit batch)
//
// then either a linear layer's bias and ReLU (TOSA's add and clamp, fused
// by pipe-fuse-elementwise)
//
//   linalg.generic ins(%v, %bias) outs(%h) {
//     %0 = arith.addf %in, %b ; %1 = arith.minimumf %0, HI
//     %2 = arith.maximumf %1, LO ; linalg.yield %2 }
//
// or ReLU's backward on the input gradient (pipe-autodiff's mask)
//
//   linalg.generic ins(%y, %c) outs(%g) {
//     %0 = arith.cmpf ogt, %y, 0 ; %1 = arith.select %0, %in, +0
//     linalg.yield %1 }
//
// lib/Target/CPU/Epilogue.h computes the same operations in the same order.
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
bool matchBody(Block &body, MatmulEpilogue &epilogue, Value in, Value bias) {
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

/// Whether `body` is `select(cmpf ogt(mask, 0), in, +0)` yielded: ReLU's
/// backward, the product kept where the forward's output was positive.
bool matchMaskBody(Block &body, Value in, Value mask) {
  auto ops = body.without_terminator();
  if (std::distance(ops.begin(), ops.end()) != 2)
    return false;
  auto cmp = dyn_cast<arith::CmpFOp>(*ops.begin());
  auto select = dyn_cast<arith::SelectOp>(*std::next(ops.begin()));
  if (!cmp || !select || cmp.getPredicate() != arith::CmpFPredicate::OGT ||
      cmp.getLhs() != mask || select.getCondition() != cmp.getResult() ||
      select.getTrueValue() != in || !cmp.getResult().hasOneUse())
    return false;
  std::optional<float> limit = clampConstant(cmp.getRhs());
  std::optional<float> zero = clampConstant(select.getFalseValue());
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  return limit && *limit == 0.0f && zero && *zero == 0.0f &&
         !std::signbit(*zero) && yield->getNumOperands() == 1 &&
         yield->getOperand(0) == select.getResult();
}

/// Whether `out`, the element-wise op's result, is a fresh buffer or a
/// result argument of the function: none of the product's operands.
bool isFreshResult(Value out) {
  if (out.getDefiningOp<memref::AllocOp>())
    return true;
  auto arg = dyn_cast<BlockArgument>(out);
  if (!arg)
    return false;
  auto fn = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  return fn && arg.getOwner() == &fn.getBody().front() &&
         fn.getArgAttr(arg.getArgNumber(), "bufferize.result");
}

/// Whether `generic` is one of the element-wise ops above on `view` (all
/// parallel, the product at the identity map, a contiguous result of the
/// same shape): a bias broadcast over the rows of a rank-2 product and
/// clamps, or a positive mask of the product's shape.
bool matchGeneric(linalg::LinalgOp matmul, linalg::GenericOp generic,
                  Value view, MatmulEpilogue &epilogue) {
  auto viewType = cast<MemRefType>(view.getType());
  int64_t rank = viewType.getRank();
  // A rank-3 product has one batch: the helpers' mask is a matrix.
  if (rank == 3 && viewType.getDimSize(0) != 1)
    return false;
  if (generic.getNumDpsInputs() != 2 || generic.getNumDpsInits() != 1 ||
      generic.getNumResults() != 0 || generic.getNumLoops() != rank ||
      generic.getNumParallelLoops() != rank || !viewType.hasStaticShape())
    return false;
  int product = generic.getDpsInputOperand(0)->get() == view ? 0 : 1;
  Value operand = generic.getDpsInputOperand(1 - product)->get();
  if (generic.getDpsInputOperand(product)->get() != view || operand == view)
    return false;
  MLIRContext *ctx = generic.getContext();
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  Value out = generic.getDpsInitOperand(0)->get();
  auto outType = dyn_cast<MemRefType>(out.getType());
  auto operandType = dyn_cast<MemRefType>(operand.getType());
  if (maps[product] != identity || maps[2] != identity || !outType ||
      outType.getShape() != viewType.getShape() ||
      !outType.getLayout().isIdentity() || !outType.getElementType().isF32() ||
      !isFreshResult(out) || !operandType ||
      !operandType.getElementType().isF32() || !operandType.hasStaticShape())
    return false;
  // The call writes the result tile by tile while it still reads the
  // product's operands and the mask: none of them may be the result.
  Value root = rootBuffer(out);
  if (root == rootBuffer(operand))
    return false;
  for (OpOperand *input : matmul.getDpsInputOperands())
    if (root == rootBuffer(input->get()))
      return false;
  epilogue.generic = generic;
  epilogue.operand = operand;
  epilogue.out = out;
  Block &body = *generic.getBody();
  Value in = body.getArgument(product), other = body.getArgument(1 - product);
  if (maps[1 - product] == identity) {
    epilogue.kind = MatmulEpilogue::PositiveMask;
    return operandType.getShape() == viewType.getShape() &&
           operandType.getLayout().isIdentity() &&
           matchMaskBody(body, in, other);
  }
  int64_t n = viewType.getDimSize(rank - 1);
  AffineExpr d1 = getAffineDimExpr(1, ctx);
  bool rowVector =
      rank == 2 && operandType.getRank() == 2 &&
      operandType.getDimSize(0) == 1 && operandType.getDimSize(1) == n &&
      maps[1 - product] ==
          AffineMap::get(2, 0, {getAffineConstantExpr(0, ctx), d1}, ctx);
  bool vector = rank == 2 && operandType.getRank() == 1 &&
                operandType.getDimSize(0) == n &&
                maps[1 - product] == AffineMap::get(2, 0, {d1}, ctx);
  epilogue.kind = MatmulEpilogue::BiasClamp;
  return (rowVector || vector) && in == body.getArgument(product) &&
         matchBody(body, epilogue, in, other);
}

} // namespace

std::optional<MatmulEpilogue> findMatmulEpilogue(linalg::LinalgOp matmul) {
  Value c = matmul.getDpsInitOperand(0)->get();
  auto alloc = c.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != matmul->getBlock())
    return std::nullopt;
  auto cType = cast<MemRefType>(c.getType());
  // The product as the element-wise op reads it: the buffer itself, or a
  // rank-2 view of it without the unit batch; nothing else reads either.
  Value view = c;
  MatmulEpilogue epilogue;
  epilogue.fill = findZeroFill(matmul, c);
  if (!epilogue.fill)
    return std::nullopt;
  linalg::GenericOp generic;
  for (Operation *user : c.getUsers()) {
    if (user == matmul.getOperation() || isa<memref::DeallocOp>(user))
      continue;
    if (auto fill = dyn_cast<linalg::FillOp>(user)) {
      if (fill != epilogue.fill)
        return std::nullopt;
      continue;
    }
    auto collapse = dyn_cast<memref::CollapseShapeOp>(user);
    if (collapse && cType.getRank() == 3 && cType.getDimSize(0) == 1 &&
        epilogue.views.empty() && collapse.getResultType().getRank() == 2 &&
        collapse->hasOneUse()) {
      epilogue.views.push_back(collapse);
      view = collapse.getResult();
      generic = dyn_cast<linalg::GenericOp>(*collapse->getUsers().begin());
      continue;
    }
    auto g = dyn_cast<linalg::GenericOp>(user);
    if (!g || generic)
      return std::nullopt;
    generic = g;
  }
  // One reader: the generic on the product or on its one view.
  if (!generic || (view != c && llvm::any_of(c.getUsers(), [](Operation *user) {
                     return isa<linalg::GenericOp>(user);
                   })))
    return std::nullopt;
  if (!generic || generic->getBlock() != matmul->getBlock() ||
      !matmul->isBeforeInBlock(generic) ||
      !matchGeneric(matmul, generic, view, epilogue))
    return std::nullopt;
  // The call takes the generic's place, so the product is computed there:
  // nothing in between may write its operands (the generic's own operands
  // and result are read and written where they were).
  Value a = matmul.getDpsInputOperand(0)->get();
  Value b = matmul.getDpsInputOperand(1)->get();
  for (Operation *op = matmul->getNextNode(); op != generic.getOperation();
       op = op->getNextNode())
    if (mayWriteBuffer(op, a) || mayWriteBuffer(op, b))
      return std::nullopt;
  return epilogue;
}

} // namespace pipewave
