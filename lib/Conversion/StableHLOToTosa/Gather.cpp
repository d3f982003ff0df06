//===- Gather.cpp - stablehlo.gather to tosa.gather -----------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The two gathers JAX emits:
//
//   * Embedding lookups (`table[tokens]`): every operand dimension is either
//     indexed (in start_index_map, slice size 1) or taken whole. The operand
//     is transposed to [indexed..., offset...] and viewed as the TOSA table
//     [1, rows, prod(offset)]; each index vector becomes the row
//     sum_k clamp(idx_k) * stride_k (clamped into range as StableHLO clamps
//     start indices), `tosa.gather` reads the rows, and a reshape and
//     transpose put the offset dimensions at `offset_dims` of the result.
//   * `take_along_axis` (batching dimensions plus one indexed dimension):
//     a one-hot select and sum over the indexed dimension (see
//     lowerBatchedGather), which needs no batch-sized constant.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "pipewave/Conversion/StableHLOToTosa/StableHLOToTosa.h"
#include "pipewave/Dialect/StableHLO/IR/Stablehlo.h"

using namespace mlir;
using namespace pipewave;
using namespace pipewave::shlo;
namespace sh = pipewave::stablehlo;

namespace {

Value clampIndex(TosaBuilder &tb, Value v, int64_t size) {
  return tosa::ClampOp::create(
      tb.b, tb.loc, v.getType(), v, tb.b.getI32IntegerAttr(0),
      tb.b.getI32IntegerAttr(size - 1),
      tosa::NanPropagationModeAttr::get(tb.b.getContext(),
                                        tosa::NanPropagationMode::PROPAGATE));
}

/// take_along_axis: batching dimensions and one indexed dimension of size V,
/// no offset dimensions. The operand is laid out along the indices' batch
/// dimensions, [S..., V] (size 1 where the indices have a dimension of their
/// own), and the result is
///
///   reduce_sum(select(idx == iota(V), operand, 0), last)
///
/// which needs no constant of a batch-sized shape (so it microbatches).
Value lowerBatchedGather(TosaBuilder &tb, sh::GatherOp op,
                         sh::GatherOp::Adaptor a) {
  sh::GatherDimensionNumbersAttr dn = op.getDimensionNumbers();
  Value operand = a.getOperand(), indices = a.getStartIndices();
  ArrayRef<int64_t> os = TosaBuilder::shape(operand);
  ArrayRef<int64_t> is = TosaBuilder::shape(indices);
  ArrayRef<int64_t> batchDims = dn.getOperandBatchingDims();
  ArrayRef<int64_t> indexBatchDims = dn.getStartIndicesBatchingDims();
  int64_t ivd = dn.getIndexVectorDim();
  if (dn.getStartIndexMap().size() != 1 || !dn.getOffsetDims().empty() ||
      batchDims.size() + 1 != os.size() ||
      dn.getCollapsedSliceDims() != dn.getStartIndexMap() ||
      (ivd < (int64_t)is.size() && is[ivd] != 1)) {
    op.emitOpError() << "is not supported: a gather with batching dimensions "
                        "must index one collapsed dimension and keep no "
                        "offset dimensions (take_along_axis)";
    return {};
  }
  int64_t axis = dn.getStartIndexMap()[0];
  int64_t v = os[axis];
  // The indices' batch shape S (without the index vector dimension).
  SmallVector<int64_t> batchShape, perm;
  SmallVector<int64_t> aligned; // the operand's sizes along S
  for (int64_t d = 0; d < (int64_t)is.size(); ++d) {
    if (d == ivd)
      continue;
    batchShape.push_back(is[d]);
    auto it = llvm::find(indexBatchDims, d);
    if (it == indexBatchDims.end()) {
      aligned.push_back(1);
      continue;
    }
    int64_t od = batchDims[it - indexBatchDims.begin()];
    perm.push_back(od);
    aligned.push_back(os[od]);
  }
  perm.push_back(axis);
  aligned.push_back(v);
  Value table = tb.reshape(tb.transpose(operand, perm), aligned);

  SmallVector<int64_t> idxShape(batchShape);
  idxShape.push_back(1);
  Type i32 = tb.b.getI32Type();
  Value idx = clampIndex(tb, tb.reshape(tb.cast(indices, i32), idxShape), v);
  SmallVector<int64_t> iotaShape(batchShape.size(), 1);
  iotaShape.push_back(v);
  SmallVector<int32_t> iota(v);
  for (int64_t i = 0; i < v; ++i)
    iota[i] = i;
  Value positions = tb.constant(DenseElementsAttr::get(
      TosaBuilder::tensor(iotaShape, i32), ArrayRef<int32_t>(iota)));
  Value hit = tb.binary<tosa::EqualOp>(idx, positions, tb.b.getI1Type());
  Type elem = TosaBuilder::elem(operand);
  SmallVector<int64_t> full(batchShape);
  full.push_back(v);
  SmallVector<int64_t> ones(full.size(), 1);
  Value picked =
      tosa::SelectOp::create(tb.b, tb.loc, TosaBuilder::tensor(full, elem), hit,
                             table, tb.splat(0, elem, ones));
  SmallVector<int64_t> summed(batchShape);
  summed.push_back(1);
  Value sum = tosa::ReduceSumOp::create(
      tb.b, tb.loc, TosaBuilder::tensor(summed, elem), picked,
      tb.b.getI32IntegerAttr(batchShape.size()));
  return tb.reshape(sum, op.getType().getShape());
}

Value lowerGather(TosaBuilder &tb, sh::GatherOp op, sh::GatherOp::Adaptor a) {
  sh::GatherDimensionNumbersAttr dn = op.getDimensionNumbers();
  Value operand = a.getOperand(), indices = a.getStartIndices();
  ArrayRef<int64_t> os = TosaBuilder::shape(operand);
  ArrayRef<int64_t> slice = op.getSliceSizes();
  int64_t rank = os.size();
  auto fail = [&](const Twine &why) {
    op.emitOpError() << "is not supported: " << why;
    return Value();
  };
  if (!TosaBuilder::elem(indices).isSignlessInteger())
    return fail("indices must be integers");

  ArrayRef<int64_t> batchDims = dn.getOperandBatchingDims();
  ArrayRef<int64_t> indexed = dn.getStartIndexMap();
  if (!batchDims.empty())
    return lowerBatchedGather(tb, op, a);
  SmallVector<int64_t> offsetDims; // operand dims taken whole, in order
  SmallVector<int64_t> keptDims;   // operand dims that appear in the result
  for (int64_t d = 0; d < rank; ++d) {
    bool isIndexed = llvm::is_contained(indexed, d);
    bool collapsed = llvm::is_contained(dn.getCollapsedSliceDims(), d);
    if (isIndexed) {
      if (slice[d] != 1)
        return fail("an indexed dimension with slice size != 1");
    } else if (slice[d] != os[d]) {
      return fail("a slice that does not take a whole dimension");
    } else {
      offsetDims.push_back(d);
    }
    if (!collapsed)
      keptDims.push_back(d);
  }

  // Indices: move the index vector dimension last (adding it when it is
  // implicit) and cast to i32.
  ArrayRef<int64_t> is = TosaBuilder::shape(indices);
  int64_t ivd = dn.getIndexVectorDim();
  int64_t nk = indexed.size();
  SmallVector<int64_t> batchShape; // the indices' batch dimensions
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < (int64_t)is.size(); ++d)
    if (d != ivd) {
      batchShape.push_back(is[d]);
      perm.push_back(d);
    }
  Value idx = indices;
  if (ivd < (int64_t)is.size()) {
    if (is[ivd] != nk)
      return fail("the index vector size differs from start_index_map");
    perm.push_back(ivd);
    idx = tb.transpose(idx, perm);
  } else if (nk != 1) {
    return fail("an implicit index vector with several indexed dimensions");
  }
  int64_t positions = 1;
  for (int64_t s : batchShape)
    positions *= s;
  Type i32 = tb.b.getI32Type();
  idx = tb.reshape(tb.cast(idx, i32), {positions, nk});

  // Row strides of the indexed dims and the batch offsets of each position.
  int64_t rows = 1;
  SmallVector<int64_t> strides(nk);
  for (int64_t k = nk - 1; k >= 0; --k) {
    strides[k] = rows;
    rows *= os[indexed[k]];
  }
  Value row;
  for (int64_t k = 0; k < nk; ++k) {
    Value comp = tosa::SliceOp::create(
        tb.b, tb.loc, TosaBuilder::tensor({positions, 1}, i32), idx,
        tb.constShape({0, k}), tb.constShape({positions, 1}));
    comp = clampIndex(tb, comp, os[indexed[k]]);
    if (strides[k] != 1)
      comp = tb.mul(comp, tb.splat(strides[k], i32, {1, 1}));
    row = row ? tb.binary<tosa::AddOp>(row, comp) : comp;
  }
  // The table [1, rows, prod(offset)].
  SmallVector<int64_t> order(indexed);
  llvm::append_range(order, offsetDims);
  if ((int64_t)order.size() != rank)
    return fail("an operand dimension indexed twice");
  int64_t width = 1;
  for (int64_t d : offsetDims)
    width *= os[d];
  Value table = tb.reshape(tb.transpose(operand, order), {1, rows, width});
  Value g = tosa::GatherOp::create(
      tb.b, tb.loc,
      TosaBuilder::tensor({1, positions, width}, TosaBuilder::elem(operand)),
      table, tb.reshape(row, {1, positions}));

  // [batch..., kept operand dims...] then kept dims to offset_dims.
  SmallVector<int64_t> pre(batchShape);
  for (int64_t d : keptDims)
    pre.push_back(slice[d]);
  Value r = tb.reshape(g, pre);
  ArrayRef<int64_t> outOffsets = dn.getOffsetDims();
  if (outOffsets.size() != keptDims.size())
    return fail("offset_dims do not match the kept slice dimensions");
  int64_t outRank = pre.size();
  SmallVector<int64_t> outPerm(outRank, -1);
  for (auto [k, pos] : llvm::enumerate(outOffsets))
    outPerm[pos] = batchShape.size() + k;
  int64_t next = 0;
  for (int64_t &p : outPerm)
    if (p < 0)
      p = next++;
  r = tb.transpose(r, outPerm);
  if (TosaBuilder::shape(r) != op.getType().getShape())
    return fail("unexpected result shape");
  return r;
}

} // namespace

void pipewave::populateStablehloGatherToTosaPatterns(
    RewritePatternSet &patterns) {
  addLowering<sh::GatherOp>(patterns, lowerGather);
}
