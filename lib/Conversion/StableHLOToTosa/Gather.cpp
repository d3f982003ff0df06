//===- Gather.cpp - stablehlo.gather to tosa.gather -----------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The gathers JAX emits pick whole rows: every operand dimension is either
//
//   * a batching dimension (paired with a dimension of the indices),
//   * an indexed dimension (in start_index_map; slice size 1), or
//   * an offset dimension taken whole (slice size = its extent).
//
// That covers embedding lookups (`table[tokens]`: one indexed dimension) and
// `take_along_axis` (batching dimensions plus one indexed dimension). The
// operand is transposed to [batching..., indexed..., offset...] and viewed as
// the TOSA table [1, rows, prod(offset)]; each index vector becomes the row
//
//   row = batch_position * prod(indexed) + sum_k clamp(idx_k) * stride_k
//
// (clamped into range as StableHLO clamps start indices), `tosa.gather`
// reads the rows, and a reshape and transpose put the offset dimensions at
// `offset_dims` of the result.
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
  SmallVector<int64_t> offsetDims; // operand dims taken whole, in order
  SmallVector<int64_t> keptDims;   // operand dims that appear in the result
  for (int64_t d = 0; d < rank; ++d) {
    bool isBatch = llvm::is_contained(batchDims, d);
    bool isIndexed = llvm::is_contained(indexed, d);
    bool collapsed = llvm::is_contained(dn.getCollapsedSliceDims(), d);
    if (isBatch || isIndexed) {
      if (slice[d] != 1)
        return fail("a batching or indexed dimension with slice size != 1");
    } else if (slice[d] != os[d]) {
      return fail("a slice that does not take a whole dimension");
    } else {
      offsetDims.push_back(d);
    }
    if (!isBatch && !collapsed)
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
    comp = tosa::ClampOp::create(
        tb.b, tb.loc, comp.getType(), comp, tb.b.getI32IntegerAttr(0),
        tb.b.getI32IntegerAttr(os[indexed[k]] - 1),
        tosa::NanPropagationModeAttr::get(tb.b.getContext(),
                                          tosa::NanPropagationMode::PROPAGATE));
    if (strides[k] != 1)
      comp = tb.mul(comp, tb.splat(strides[k], i32, {1, 1}));
    row = row ? tb.binary<tosa::AddOp>(row, comp) : comp;
  }
  if (!batchDims.empty()) {
    // position p has coordinates along the indices' batch dims; the operand
    // batching dim j follows indices dim start_indices_batching_dims[j].
    ArrayRef<int64_t> ibd = dn.getStartIndicesBatchingDims();
    SmallVector<int32_t> offsets(positions);
    for (int64_t p = 0; p < positions; ++p) {
      // Coordinates of p in the indices' batch shape (row-major).
      SmallVector<int64_t> coord(batchShape.size());
      for (int64_t d = batchShape.size() - 1, r = p; d >= 0; --d) {
        coord[d] = r % batchShape[d];
        r /= batchShape[d];
      }
      int64_t linear = 0;
      for (auto [j, od] : llvm::enumerate(batchDims)) {
        int64_t id = ibd[j];
        int64_t pos = id < ivd ? id : id - 1; // position among batch dims
        linear = linear * os[od] + coord[pos];
      }
      offsets[p] = linear * rows;
    }
    auto t = TosaBuilder::tensor({positions, 1}, i32);
    row = tb.binary<tosa::AddOp>(row, tb.constant(DenseElementsAttr::get(
                                          t, ArrayRef<int32_t>(offsets))));
    for (int64_t od : batchDims)
      rows *= os[od];
  }

  // The table [1, rows, prod(offset)].
  SmallVector<int64_t> order(batchDims);
  llvm::append_range(order, indexed);
  llvm::append_range(order, offsetDims);
  if ((int64_t)order.size() != rank)
    return fail("operand dimensions that are both batching and indexed");
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
