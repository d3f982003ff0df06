//===- MatMul.cpp - ONNX MatMul and Gemm to TOSA --------------------------===//
//
// Part of the pipewave project.
//
// tosa.matmul is 3-D ([B, M, K] x [B, K, N]); 2-D and batched products are
// reshaped to and from that form.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

using namespace mlir;
using namespace pipewave::onnximport;

namespace {

int64_t product(ArrayRef<int64_t> s) {
  int64_t p = 1;
  for (int64_t d : s)
    p *= d;
  return p;
}

/// Broadcasts `v` (rank-aligned) to `target` with tosa.tile.
Value expandTo(Importer &im, Value v, ArrayRef<int64_t> target) {
  SmallVector<int64_t> s(target.size() - Importer::shape(v).size(), 1);
  llvm::append_range(s, Importer::shape(v));
  v = im.reshape(v, s);
  if (ArrayRef<int64_t>(s) == target)
    return v;
  SmallVector<int64_t> mult;
  for (auto [d, t] : llvm::zip(s, target))
    mult.push_back(d == t ? 1 : t);
  return tosa::TileOp::create(im.b, im.loc,
                              im.tensor(target, Importer::elem(v)), v,
                              im.constShape(mult));
}

Value matmul3(Importer &im, Value a, Value c) {
  auto sa = Importer::shape(a), sc = Importer::shape(c);
  Type e = Importer::elem(a);
  return tosa::MatMulOp::create(im.b, im.loc,
                                im.tensor({sa[0], sa[1], sc[2]}, e), a, c,
                                im.zeroPoint(e), im.zeroPoint(e));
}

/// N-D matmul with numpy semantics (both ranks >= 2).
Value matmulND(Importer &im, Value a, Value c) {
  auto sa = Importer::shape(a), sc = Importer::shape(c);
  int64_t m = sa[sa.size() - 2], k = sa.back(), n = sc.back();
  if (sc[sc.size() - 2] != k) {
    (void)im.error("inner dimensions differ");
    return {};
  }
  SmallVector<int64_t> batchA(sa.drop_back(2)), batchC(sc.drop_back(2));
  SmallVector<int64_t> outShape;
  if (batchC.empty() || product(batchC) == 1) {
    // Fold A's batch into M: one [1, P*M, K] x [1, K, N] product.
    int64_t p = product(batchA);
    Value r =
        matmul3(im, im.reshape(a, {1, p * m, k}), im.reshape(c, {1, k, n}));
    outShape = batchA;
    if (batchC.size() > batchA.size())
      outShape.assign(batchC.size() - batchA.size(), 1),
          llvm::append_range(outShape, batchA);
    outShape.push_back(m);
    outShape.push_back(n);
    return im.reshape(r, outShape);
  }
  auto batch = Importer::broadcastShape(batchA, batchC);
  if (!batch) {
    (void)im.error("batch dimensions do not broadcast");
    return {};
  }
  SmallVector<int64_t> ta(*batch), tc(*batch);
  ta.append({m, k});
  tc.append({k, n});
  a = expandTo(im, a, ta);
  c = expandTo(im, c, tc);
  int64_t p = product(*batch);
  Value r = matmul3(im, im.reshape(a, {p, m, k}), im.reshape(c, {p, k, n}));
  outShape = *batch;
  outShape.append({m, n});
  return im.reshape(r, outShape);
}

LogicalResult importMatMul(Importer &im, const Node &n) {
  Value a = im.input(n, 0), c = im.input(n, 1);
  if (!a || !c)
    return failure();
  if (!llvm::isa<FloatType>(Importer::elem(a)))
    return im.error("only floating-point inputs are supported");
  bool vecA = Importer::shape(a).size() == 1,
       vecC = Importer::shape(c).size() == 1;
  if (vecA)
    a = im.reshape(a, {1, Importer::shape(a)[0]});
  if (vecC)
    c = im.reshape(c, {Importer::shape(c)[0], 1});
  Value r = matmulND(im, a, c);
  if (!r)
    return failure();
  SmallVector<int64_t> s(Importer::shape(r));
  if (vecC)
    s.erase(s.end() - 1);
  if (vecA)
    s.erase(s.end() - (vecC ? 1 : 2));
  im.setOutput(n, 0, im.reshape(r, s));
  return success();
}

LogicalResult importGemm(Importer &im, const Node &n) {
  Value a = im.input(n, 0), c = im.input(n, 1);
  if (!a || !c)
    return failure();
  if (Importer::shape(a).size() != 2 || Importer::shape(c).size() != 2)
    return im.error("Gemm inputs must be 2-D");
  if (im.attrInt(n, "transA", 0))
    a = im.transpose(a, {1, 0});
  if (im.attrInt(n, "transB", 0))
    c = im.transpose(c, {1, 0});
  Type e = Importer::elem(a);
  Value y = matmulND(im, a, c);
  if (!y)
    return failure();
  float alpha = im.attrFloat(n, "alpha", 1.0f);
  float beta = im.attrFloat(n, "beta", 1.0f);
  if (alpha != 1.0f)
    y = im.mul(y, im.scalarLike(alpha, e, 2));
  if (im.hasInput(n, 2) && beta != 0.0f) {
    Value bias = im.input(n, 2);
    if (!bias)
      return failure();
    if (beta != 1.0f)
      bias = im.mul(bias, im.scalarLike(beta, e, Importer::shape(bias).size()));
    y = im.add(y, bias);
    if (!y)
      return failure();
  }
  im.setOutput(n, 0, y);
  return success();
}

} // namespace

void pipewave::onnximport::populateMatMulOps(OpTable &t) {
  t["MatMul"] = importMatMul;
  t["Gemm"] = importGemm;
}
