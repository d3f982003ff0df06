//===- Convolution.cpp - Gradient rules of TOSA convolutions --------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// tosa.conv2d, x : [N, IH, IW, IC] (NHWC), w : [OC, KH, KW, IC] (OHWI),
// bias : [OC] (or [1]), padding [pt, pb, pl, pr], stride [sy, sx], dilation
// [dy, dx]:
//
//   y[n, oh, ow, oc] = bias[oc] + sum_{kh, kw, ic}
//       xp[n, oh*sy + kh*dy, ow*sx + kw*dx, ic] * w[oc, kh, kw, ic]
//
// where xp is x padded with zeros (xp[i] = x[i - pt]). The backward is built
// from convolutions again, so the CPU and GPU lowerings need nothing new:
//
//  * dx: the cotangent dilated by the stride (sy-1 zeros between rows),
//    g = dilate(dy), placed at offset (KH-1)*dy - pt in a tensor of height
//    IH + (KH-1)*dy (zero-padded or cropped), convolved with stride 1 and
//    the forward's dilation with the flipped, transposed weight
//    wf[ic, kh, kw, oc] = w[oc, KH-1-kh, KW-1-kw, ic]:
//      dx[ih] = sum_kh dilate(dy)[ih + pt - kh*dy] * w[kh].
//  * dw: a convolution over the batch. With X' = transpose(xp) : [IC, H', W',
//    N] (xp cropped to H' = (KH-1)*dy + (OH-1)*sy + 1) and the kernel
//    transpose(dy) : [OC, OH, OW, N], a conv2d with stride = the forward's
//    dilation and dilation = the forward's stride gives [IC, KH, KW, OC]:
//      dw[oc, kh, kw, ic] = sum_{n, oh, ow} xp[n, kh*dy + oh*sy, ...] dy[...]
//    which is transposed back to OHWI.
//  * dbias: dy summed over N, OH, OW (and over OC for a [1] bias).
//
// tosa.depthwise_conv2d, w : [KH, KW, C, M], y : [N, OH, OW, C*M] with
// y[..., c*M + m] = sum_{kh, kw} xp[..., c] * w[kh, kw, c, m]:
//
//  * dx: per multiplier m, the same full convolution as above as a
//    depthwise convolution of the m-th slice of dy with the flipped
//    w[:, :, :, m], summed over m.
//  * dw: a depthwise convolution over one image whose channels are (c, n):
//    input [1, H', W', C*N] (xp transposed), kernel [OH, OW, C*N, M] (dy
//    rearranged), output [1, KH, KW, C*N*M], summed over n.
//
// Zero points are float zeros and get no gradient.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Pipe/Transforms/GradientRules.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"

using namespace mlir;
using namespace pipewave::pipe::autodiff;

namespace {

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// The gradient of a bias of shape [OC] or [1] from dy : [N, OH, OW, OC].
Value biasGradient(GradientEmitter &e, Value dy, Value bias) {
  Value sum = e.reduceSum(e.reduceSum(e.reduceSum(dy, 0), 1), 2);
  int64_t channels = shapeOf(dy)[3];
  sum = e.reshape(sum, {channels});
  return e.sumToShape(sum, bias.getType());
}

/// The cotangent dy : [N, OH, OW, C] dilated by `stride` and placed so that a
/// stride-1 convolution with the flipped kernel (extent KH, KW with
/// `dilation`) yields [N, IH, IW, *].
Value fullConvInput(GradientEmitter &e, Value dy, ArrayRef<int64_t> in,
                    ArrayRef<int64_t> kernel, ArrayRef<int64_t> pad,
                    ArrayRef<int64_t> stride, ArrayRef<int64_t> dilation) {
  Value g = e.dilate(dy, stride);
  int64_t extentH = (kernel[0] - 1) * dilation[0];
  int64_t extentW = (kernel[1] - 1) * dilation[1];
  ArrayRef<int64_t> gs = shapeOf(g);
  return e.shift(g, {0, extentH - pad[0], extentW - pad[2], 0},
                 {gs[0], in[1] + extentH, in[2] + extentW, gs[3]});
}

/// x : [N, IH, IW, C] padded by `pad` and cropped to the rows and columns
/// the windows read: [N, (KH-1)*dy + (OH-1)*sy + 1, ..., C].
Value windowInput(GradientEmitter &e, Value x, ArrayRef<int64_t> out,
                  ArrayRef<int64_t> kernel, ArrayRef<int64_t> pad,
                  ArrayRef<int64_t> stride, ArrayRef<int64_t> dilation) {
  ArrayRef<int64_t> xs = shapeOf(x);
  return e.shift(
      x, {0, pad[0], pad[2], 0},
      {xs[0], (kernel[0] - 1) * dilation[0] + (out[1] - 1) * stride[0] + 1,
       (kernel[1] - 1) * dilation[1] + (out[2] - 1) * stride[1] + 1, xs[3]});
}

LogicalResult conv2dRule(Operation *op, GradientEmitter &e,
                         ArrayRef<Value> dResults, ArrayRef<bool> needed,
                         MutableArrayRef<Value> dOperands) {
  auto conv = cast<tosa::Conv2DOp>(op);
  Value dy = dResults[0];
  ArrayRef<int64_t> pad = conv.getPad(), stride = conv.getStride(),
                    dilation = conv.getDilation();
  Type acc = conv.getAccType();
  ArrayRef<int64_t> ws = shapeOf(conv.getWeight());
  ArrayRef<int64_t> kernel = ws.slice(1, 2);
  const int32_t swapNC[] = {3, 1, 2, 0};
  if (needed[0]) {
    Value w = e.primal(conv.getWeight());
    Value flipped = e.transpose(e.reverse(e.reverse(w, 1), 2), swapNC);
    Value g = fullConvInput(e, dy, shapeOf(conv.getInput()), kernel, pad,
                            stride, dilation);
    dOperands[0] = e.conv2d(g, flipped, {1, 1}, dilation, acc);
  }
  if (needed[1]) {
    Value x = windowInput(e, e.primal(conv.getInput()), shapeOf(dy), kernel,
                          pad, stride, dilation);
    Value r = e.conv2d(e.transpose(x, swapNC), e.transpose(dy, swapNC),
                       dilation, stride, acc);
    dOperands[1] = e.transpose(r, swapNC);
  }
  if (needed[2])
    dOperands[2] = biasGradient(e, dy, conv.getBias());
  return success();
}

LogicalResult depthwiseRule(Operation *op, GradientEmitter &e,
                            ArrayRef<Value> dResults, ArrayRef<bool> needed,
                            MutableArrayRef<Value> dOperands) {
  auto conv = cast<tosa::DepthwiseConv2DOp>(op);
  Value dy = dResults[0];
  ArrayRef<int64_t> pad = conv.getPad(), stride = conv.getStride(),
                    dilation = conv.getDilation();
  Type acc = conv.getAccType();
  ArrayRef<int64_t> ws = shapeOf(conv.getWeight());
  int64_t kh = ws[0], kw = ws[1], c = ws[2], m = ws[3];
  ArrayRef<int64_t> ys = shapeOf(dy);
  int64_t n = ys[0], oh = ys[1], ow = ys[2];
  if (needed[0]) {
    Value w = e.primal(conv.getWeight());
    Value flipped = e.reverse(e.reverse(w, 0), 1);
    // dy as [N, OH, OW, C, M]: channel c*M + m.
    Value dy5 = e.reshape(dy, {n, oh, ow, c, m});
    Value dx;
    for (int64_t i = 0; i < m; ++i) {
      Value dyi = e.reshape(e.slice(dy5, {0, 0, 0, 0, i}, {n, oh, ow, c, 1}),
                            {n, oh, ow, c});
      Value wi = e.slice(flipped, {0, 0, 0, i}, {kh, kw, c, 1});
      Value g = fullConvInput(e, dyi, shapeOf(conv.getInput()), {kh, kw}, pad,
                              stride, dilation);
      Value part = e.depthwiseConv2d(g, wi, {1, 1}, dilation, acc);
      dx = dx ? e.add(dx, part) : part;
    }
    dOperands[0] = dx;
  }
  if (needed[1]) {
    Value x = windowInput(e, e.primal(conv.getInput()), ys, {kh, kw}, pad,
                          stride, dilation);
    ArrayRef<int64_t> xs = shapeOf(x);
    // [N, H', W', C] -> [1, H', W', C*N], channel c*N + n.
    Value input =
        e.reshape(e.transpose(x, {1, 2, 3, 0}), {1, xs[1], xs[2], c * n});
    // [N, OH, OW, C*M] -> [OH, OW, C*N, M].
    Value kernel = e.reshape(
        e.transpose(e.reshape(dy, {n, oh, ow, c, m}), {1, 2, 3, 0, 4}),
        {oh, ow, c * n, m});
    Value r = e.depthwiseConv2d(input, kernel, dilation, stride, acc);
    // [1, KH, KW, (c*N + n)*M + m] -> sum over n -> [KH, KW, C, M].
    r = e.reduceSum(e.reshape(r, {kh, kw, c, n, m}), 3);
    dOperands[1] = e.reshape(r, {kh, kw, c, m});
  }
  if (needed[2])
    dOperands[2] = biasGradient(e, dy, conv.getBias());
  return success();
}

} // namespace

void pipewave::pipe::autodiff::registerConvolutionGradientRules(
    GradientRuleTable &table) {
  table.add(tosa::Conv2DOp::getOperationName(), conv2dRule);
  table.add(tosa::DepthwiseConv2DOp::getOperationName(), depthwiseRule);
}
