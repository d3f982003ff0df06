//===- Reductions.cpp - ONNX reductions, softmax and losses to TOSA -------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

using namespace mlir;
using namespace pipewave::onnximport;

namespace {

/// The normalized, sorted reduction axes of node `n` (attribute or, for
/// ReduceSum >= 13 / opset >= 18, the second input).
std::optional<SmallVector<int64_t>> reductionAxes(Importer &im, const Node &n,
                                                  int64_t rank) {
  std::optional<SmallVector<int64_t>> axes = im.attrInts(n, "axes");
  if (!axes && im.hasInput(n, 1)) {
    axes = im.constInts(n, 1);
    if (!axes) {
      (void)im.error("reduction axes must be a constant");
      return std::nullopt;
    }
  }
  SmallVector<int64_t> out;
  if (!axes || axes->empty()) {
    if (im.attrInt(n, "noop_with_empty_axes", 0))
      return out;
    for (int64_t i = 0; i < rank; ++i)
      out.push_back(i);
    return out;
  }
  for (int64_t a : *axes) {
    auto x = im.axis(a, rank);
    if (!x)
      return std::nullopt;
    out.push_back(*x);
  }
  llvm::sort(out);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Value dropAxes(Importer &im, Value v, ArrayRef<int64_t> axes) {
  SmallVector<int64_t> s;
  for (auto [i, d] : llvm::enumerate(Importer::shape(v)))
    if (!llvm::is_contained(axes, (int64_t)i))
      s.push_back(d);
  return im.reshape(v, s);
}

enum class Kind { Sum, Mean, Max };

template <Kind K> LogicalResult importReduce(Importer &im, const Node &n) {
  Value x = im.input(n, 0);
  if (!x)
    return failure();
  int64_t rank = Importer::shape(x).size();
  auto axes = reductionAxes(im, n, rank);
  if (!axes)
    return failure();
  if (rank == 0 || axes->empty()) {
    im.setOutput(n, 0, x);
    return success();
  }
  Value r = K == Kind::Max ? im.reduceMax(x, *axes) : im.reduceSum(x, *axes);
  if (K == Kind::Mean) {
    int64_t count = 1;
    for (int64_t a : *axes)
      count *= Importer::shape(x)[a];
    r = im.mul(r, im.scalarLike(1.0 / count, Importer::elem(x), rank));
  }
  if (!im.attrInt(n, "keepdims", 1))
    r = dropAxes(im, r, *axes);
  im.setOutput(n, 0, r);
  return success();
}

/// log_softmax or softmax of x along `axis`.
Value softmax(Importer &im, Value x, int64_t axis, bool log) {
  Value shifted = im.sub(x, im.reduceMax(x, {axis}));
  Value e = im.unary<tosa::ExpOp>(shifted);
  Value sum = im.reduceSum(e, {axis});
  if (log)
    return im.sub(shifted, im.unary<tosa::LogOp>(sum));
  return im.mul(e, im.unary<tosa::ReciprocalOp>(sum));
}

template <bool Log> LogicalResult importSoftmax(Importer &im, const Node &n) {
  Value x = im.input(n, 0);
  if (!x)
    return failure();
  int64_t rank = Importer::shape(x).size();
  auto axis = im.axis(im.attrInt(n, "axis", im.opset < 13 ? 1 : -1), rank);
  if (!axis)
    return failure();
  // Before opset 13 the input is coerced to 2-D at `axis`; that equals the
  // per-axis form only for the last axis.
  if (im.opset < 13 && *axis != rank - 1)
    return im.error("opset < 13 softmax is only supported on the last axis");
  im.setOutput(n, 0, softmax(im, x, *axis, Log));
  return success();
}

/// `ignore_index`, as PyTorch writes it on every cross-entropy export (-100):
/// supported outside the class range [0, C), where a label equal to it
/// selects no class in the one-hot product and so contributes 0 to the sum.
/// The mean still divides by N, the number of labels, whereas ONNX divides by
/// the number of labels not ignored: the two agree unless a label is
/// ignored. A data-dependent divisor would break pipewave's convention that
/// the loss is a sum over the rows times a constant (microbatch losses add
/// up to the global one), so it is not built; an index inside [0, C) is
/// rejected rather than imported with that divisor.
LogicalResult checkIgnoreIndex(Importer &im, const Node &n, int64_t classes) {
  const auto *ignore = im.attr(n, "ignore_index");
  if (ignore && ignore->i() >= 0 && ignore->i() < classes)
    return im.error("ignore_index " + Twine(ignore->i()) +
                    " inside the class range [0, " + Twine(classes) +
                    ") is not supported");
  return success();
}

/// Mean negative log-likelihood of `logProb` [N, C] at integer `labels` [N].
LogicalResult nllLoss(Importer &im, const Node &n, Value logProb) {
  if (im.hasInput(n, 2))
    return im.error("class weights are not supported");
  std::string reduction = im.attrString(n, "reduction", "mean");
  if (reduction != "mean" && reduction != "sum")
    return im.error("reduction '" + reduction + "' is not supported");
  auto s = Importer::shape(logProb);
  if (s.size() != 2)
    return im.error("only [N, C] scores are supported");
  Value labels = im.input(n, 1);
  if (!labels)
    return failure();
  int64_t batch = s[0], classes = s[1];
  if (failed(checkIgnoreIndex(im, n, classes)))
    return failure();
  Type i32 = im.b.getI32Type();
  Value lab = im.reshape(im.cast(labels, i32), {batch, 1});
  SmallVector<int32_t> iota;
  for (int64_t i = 0; i < classes; ++i)
    iota.push_back(i);
  auto iotaType = im.tensor({1, classes}, i32);
  Value classIds = tosa::ConstOp::create(
      im.b, im.loc, iotaType,
      DenseElementsAttr::get(iotaType, ArrayRef<int32_t>(iota)));
  Value oneHot =
      im.cast(im.binary<tosa::EqualOp>(lab, classIds, im.b.getI1Type()),
              Importer::elem(logProb));
  Value picked = im.reduceSum(im.mul(oneHot, logProb), {0, 1});
  double scale = reduction == "mean" ? -1.0 / batch : -1.0;
  Value loss = im.mul(picked, im.scalarLike(scale, Importer::elem(logProb), 2));
  im.setOutput(n, 0, im.reshape(loss, {}));
  if (n.output_size() > 1)
    im.setOutput(n, 1, logProb);
  return success();
}

LogicalResult importSoftmaxCrossEntropy(Importer &im, const Node &n) {
  Value x = im.input(n, 0);
  if (!x)
    return failure();
  if (Importer::shape(x).size() != 2)
    return im.error("only [N, C] scores are supported");
  return nllLoss(im, n, softmax(im, x, 1, /*log=*/true));
}

LogicalResult importNLL(Importer &im, const Node &n) {
  Value x = im.input(n, 0);
  if (!x)
    return failure();
  return nllLoss(im, n, x);
}

} // namespace

void pipewave::onnximport::populateReductionOps(OpTable &t) {
  t["ReduceSum"] = importReduce<Kind::Sum>;
  t["ReduceMean"] = importReduce<Kind::Mean>;
  t["ReduceMax"] = importReduce<Kind::Max>;
  t["Softmax"] = importSoftmax<false>;
  t["LogSoftmax"] = importSoftmax<true>;
  t["SoftmaxCrossEntropyLoss"] = importSoftmaxCrossEntropy;
  t["NegativeLogLikelihoodLoss"] = importNLL;
}
