//===- BatchNorm.cpp - ONNX BatchNormalization to TOSA and pipe -----------===//
//
// Part of the pipewave project.
//
// Eval mode normalises with the running statistics (constants). Training
// mode (training_mode = 1, what torch.onnx.export writes with
// TrainingMode.TRAINING) normalises with the statistics of the batch, which
// pipe.batch_mean keeps per microbatch (PyTorch with gradient accumulation:
// each microbatch normalises with its own statistics), and moves the
// running statistics, runtime-owned state, with pipe.update_state as
// PyTorch does: the mean, and the unbiased variance. (The node's running
// variance output follows ONNX: the biased variance.)
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "pipewave/Dialect/Pipe/IR/Pipe.h"

using namespace mlir;
using namespace pipewave::onnximport;

namespace {

/// `v` of shape [C] as [1, C, 1, ..., 1] of rank `rank`.
Value perChannel(Importer &im, Value v, int64_t rank) {
  SmallVector<int64_t> s(rank, 1);
  s[1] = Importer::shape(v)[0];
  return im.reshape(v, s);
}

/// The running statistic `state` ([C]) moved towards `stat` ([1, C, 1, ...])
/// by `momentum`: the node's output, as ONNX defines it. When `state` is a
/// `pipe.frozen` argument (runtime-owned state), it is also moved towards
/// `stateStat`, as PyTorch moves it.
Value updateRunning(Importer &im, Value state, Value stat, Value stateStat,
                    double momentum) {
  Type e = Importer::elem(state);
  auto moved = [&](Value v) {
    Value flat = im.reshape(v, Importer::shape(state));
    return std::make_pair(
        flat, im.add(im.mul(state, im.scalarLike(1.0 - momentum, e, 1)),
                     im.mul(flat, im.scalarLike(momentum, e, 1))));
  };
  auto arg = dyn_cast<BlockArgument>(state);
  auto fn = arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp())
                : func::FuncOp();
  if (fn && pipewave::pipe::isFrozenArg(fn, arg.getArgNumber()))
    pipewave::pipe::UpdateStateOp::create(im.b, im.loc, state,
                                          moved(stateStat).first,
                                          im.b.getF64FloatAttr(momentum));
  return moved(stat).second;
}

LogicalResult importBatchNorm(Importer &im, const Node &n) {
  Value x = im.input(n, 0), scale = im.input(n, 1), bias = im.input(n, 2);
  Value mean = im.input(n, 3), var = im.input(n, 4);
  if (!x || !scale || !bias || !mean || !var)
    return failure();
  int64_t rank = Importer::shape(x).size();
  if (rank < 2)
    return im.error("expected an input of rank >= 2 (N, C, ...)");
  int64_t channels = Importer::shape(x)[1];
  for (Value v : {scale, bias, mean, var})
    if (Importer::shape(v).size() != 1 || Importer::shape(v)[0] != channels)
      return im.error("scale, B, input_mean and input_var must have shape [" +
                      Twine(channels) + "]");
  Type e = Importer::elem(x);
  Value eps = im.scalarLike(im.attrFloat(n, "epsilon", 1e-5f), e, rank);
  bool training = im.attrInt(n, "training_mode", 0) != 0;
  if (!training) {
    Value d = im.sub(x, perChannel(im, mean, rank));
    Value invStd =
        im.unary<tosa::RsqrtOp>(im.add(perChannel(im, var, rank), eps));
    Value y = im.mul(im.mul(d, invStd), perChannel(im, scale, rank));
    y = im.add(y, perChannel(im, bias, rank));
    if (!y)
      return failure();
    im.setOutput(n, 0, y);
    return success();
  }

  SmallVector<int64_t> axes = {0};
  SmallVector<int64_t> statShape(rank, 1);
  statShape[1] = channels;
  for (int64_t a = 2; a < rank; ++a)
    axes.push_back(a);
  auto batchMean = [&](Value v, int64_t correction) -> Value {
    if (!v)
      return {};
    return pipewave::pipe::BatchMeanOp::create(
        im.b, im.loc, im.tensor(statShape, e), v,
        im.b.getDenseI64ArrayAttr(axes), correction);
  };
  Value batchMeanX = batchMean(x, 0);
  Value d = im.sub(x, batchMeanX);
  Value sq = im.mul(d, d);
  Value batchVar = batchMean(sq, 0);
  Value invStd = im.unary<tosa::RsqrtOp>(im.add(batchVar, eps));
  Value y = im.mul(im.mul(d, invStd), perChannel(im, scale, rank));
  y = im.add(y, perChannel(im, bias, rank));
  if (!y)
    return failure();
  im.setOutput(n, 0, y);

  // ONNX's momentum weighs the old value; PyTorch's the new one.
  double momentum = 1.0 - im.attrFloat(n, "momentum", 0.9f);
  int64_t count = 1;
  for (int64_t a : axes)
    count *= Importer::shape(x)[a];
  if (count < 2)
    return im.error("training mode needs more than one value per channel");
  // ONNX's running variance output moves towards the biased variance;
  // PyTorch's running variance (the state) towards the unbiased one.
  im.setOutput(n, 1, updateRunning(im, mean, batchMeanX, batchMeanX, momentum));
  im.setOutput(n, 2,
               updateRunning(im, var, batchVar, batchMean(sq, 1), momentum));
  return success();
}

} // namespace

void pipewave::onnximport::populateBatchNormOps(OpTable &t) {
  t["BatchNormalization"] = importBatchNorm;
}
