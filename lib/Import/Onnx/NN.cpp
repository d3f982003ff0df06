//===- NN.cpp - ONNX normalization, convolution and pooling to TOSA -------===//
//
// Part of the pipewave project.
//
// ONNX convolutions and pools are NCHW; TOSA's are NHWC, so the importer
// transposes around them (weights OIHW -> OHWI).
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

using namespace mlir;
using namespace pipewave::onnximport;

namespace {

LogicalResult importLayerNorm(Importer &im, const Node &n) {
  Value x = im.input(n, 0), scale = im.input(n, 1);
  if (!x || !scale)
    return failure();
  int64_t rank = Importer::shape(x).size();
  auto axis = im.axis(im.attrInt(n, "axis", -1), rank);
  if (!axis)
    return failure();
  Type e = Importer::elem(x);
  SmallVector<int64_t> axes;
  int64_t count = 1;
  for (int64_t a = *axis; a < rank; ++a) {
    axes.push_back(a);
    count *= Importer::shape(x)[a];
  }
  Value invN = im.scalarLike(1.0 / count, e, rank);
  Value mean = im.mul(im.reduceSum(x, axes), invN);
  Value d = im.sub(x, mean);
  Value var = im.mul(im.reduceSum(im.mul(d, d), axes), invN);
  Value eps = im.scalarLike(im.attrFloat(n, "epsilon", 1e-5f), e, rank);
  Value y = im.mul(d, im.unary<tosa::RsqrtOp>(im.add(var, eps)));
  y = im.mul(y, scale);
  if (im.hasInput(n, 2)) {
    Value bias = im.input(n, 2);
    if (!bias)
      return failure();
    y = im.add(y, bias);
  }
  if (!y)
    return failure();
  if (n.output_size() > 1)
    return im.error("Mean/InvStdDev outputs are not supported");
  im.setOutput(n, 0, y);
  return success();
}

struct Window {
  SmallVector<int64_t> kernel, stride, dilation, pad; // pad: t, b, l, r (TOSA)
  int64_t outH = 0, outW = 0;
};

/// Reads kernel/strides/dilations/pads of a 2-D window op on input [N,C,H,W].
std::optional<Window> window(Importer &im, const Node &n, ArrayRef<int64_t> in,
                             ArrayRef<int64_t> kernel) {
  if (im.attrString(n, "auto_pad", "NOTSET") != "NOTSET") {
    (void)im.error("auto_pad is not supported; export with explicit pads");
    return std::nullopt;
  }
  if (im.attrInt(n, "ceil_mode", 0)) {
    (void)im.error("ceil_mode is not supported");
    return std::nullopt;
  }
  Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  w.stride = im.attrInts(n, "strides").value_or(SmallVector<int64_t>{1, 1});
  w.dilation =
      im.attrInts(n, "dilations").value_or(SmallVector<int64_t>{1, 1});
  auto p = im.attrInts(n, "pads").value_or(SmallVector<int64_t>{0, 0, 0, 0});
  if (w.kernel.size() != 2 || w.stride.size() != 2 || w.dilation.size() != 2 ||
      p.size() != 4) {
    (void)im.error("only 2-D windows are supported");
    return std::nullopt;
  }
  // ONNX pads: [h_begin, w_begin, h_end, w_end]; TOSA: [top, bottom, left, right].
  w.pad = {p[0], p[2], p[1], p[3]};
  w.outH = (in[2] + p[0] + p[2] - w.dilation[0] * (w.kernel[0] - 1) - 1) /
               w.stride[0] + 1;
  w.outW = (in[3] + p[1] + p[3] - w.dilation[1] * (w.kernel[1] - 1) - 1) /
               w.stride[1] + 1;
  return w;
}

Value toNHWC(Importer &im, Value v) { return im.transpose(v, {0, 2, 3, 1}); }
Value toNCHW(Importer &im, Value v) { return im.transpose(v, {0, 3, 1, 2}); }

LogicalResult importConv(Importer &im, const Node &n) {
  Value x = im.input(n, 0), w = im.input(n, 1);
  if (!x || !w)
    return failure();
  auto xs = Importer::shape(x), ws = Importer::shape(w);
  if (xs.size() != 4 || ws.size() != 4)
    return im.error("only 2-D convolutions (NCHW) are supported");
  if (im.attrInt(n, "group", 1) != 1)
    return im.error("grouped convolutions are not supported");
  auto win = window(im, n, xs, ws.drop_front(2));
  if (!win)
    return failure();
  Type e = Importer::elem(x);
  Value bias = im.hasInput(n, 2) ? im.input(n, 2) : im.splat(0, e, {ws[0]});
  if (!bias)
    return failure();
  Value y = tosa::Conv2DOp::create(
      im.b, im.loc, im.tensor({xs[0], win->outH, win->outW, ws[0]}, e),
      toNHWC(im, x), toNHWC(im, w), bias, im.zeroPoint(e), im.zeroPoint(e),
      im.b.getDenseI64ArrayAttr(win->pad),
      im.b.getDenseI64ArrayAttr(win->stride),
      im.b.getDenseI64ArrayAttr(win->dilation), TypeAttr::get(e),
      im.b.getBoolAttr(false));
  im.setOutput(n, 0, toNCHW(im, y));
  return success();
}

template <bool Max> LogicalResult importPool(Importer &im, const Node &n) {
  Value x = im.input(n, 0);
  if (!x)
    return failure();
  auto xs = Importer::shape(x);
  auto k = im.attrInts(n, "kernel_shape");
  if (xs.size() != 4 || !k)
    return im.error("only 2-D pools (NCHW) are supported");
  auto win = window(im, n, xs, *k);
  if (!win)
    return failure();
  if (win->dilation != SmallVector<int64_t>{1, 1})
    return im.error("dilated pools are not supported");
  if (n.output_size() > 1)
    return im.error("the Indices output is not supported");
  Type e = Importer::elem(x);
  auto outType = im.tensor({xs[0], win->outH, win->outW, xs[1]}, e);
  Value y;
  if (Max) {
    y = tosa::MaxPool2dOp::create(im.b, im.loc, outType, toNHWC(im, x),
                                  im.b.getDenseI64ArrayAttr(win->kernel),
                                  im.b.getDenseI64ArrayAttr(win->stride),
                                  im.b.getDenseI64ArrayAttr(win->pad));
  } else {
    bool padded = llvm::any_of(win->pad, [](int64_t p) { return p != 0; });
    if (padded && im.attrInt(n, "count_include_pad", 0))
      return im.error("count_include_pad with padding is not supported");
    y = tosa::AvgPool2dOp::create(im.b, im.loc, outType, toNHWC(im, x),
                                  im.zeroPoint(e), im.zeroPoint(e),
                                  im.b.getDenseI64ArrayAttr(win->kernel),
                                  im.b.getDenseI64ArrayAttr(win->stride),
                                  im.b.getDenseI64ArrayAttr(win->pad),
                                  TypeAttr::get(e));
  }
  im.setOutput(n, 0, toNCHW(im, y));
  return success();
}

} // namespace

void pipewave::onnximport::populateNNOps(OpTable &t) {
  t["LayerNormalization"] = importLayerNorm;
  t["Conv"] = importConv;
  t["MaxPool"] = importPool<true>;
  t["AveragePool"] = importPool<false>;
}
