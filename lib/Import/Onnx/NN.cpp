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
  Value invStd = im.unary<tosa::RsqrtOp>(im.add(var, eps));
  Value y = im.mul(d, invStd);
  y = im.mul(y, scale);
  if (im.hasInput(n, 2)) {
    Value bias = im.input(n, 2);
    if (!bias)
      return failure();
    y = im.add(y, bias);
  }
  if (!y)
    return failure();
  // Mean and InvStdDev keep the normalized axes as 1s.
  im.setOutput(n, 0, y);
  im.setOutput(n, 1, mean);
  im.setOutput(n, 2, invStd);
  return success();
}

struct Window {
  SmallVector<int64_t> kernel, stride, dilation, pad; // pad: t, b, l, r (TOSA)
  int64_t outH = 0, outW = 0;
  int64_t inH = 0, inW = 0; // rows/columns of the input the windows read
};

/// Reads kernel/strides/dilations/pads/auto_pad/ceil_mode of a 2-D window op
/// on input [N,C,H,W]. TOSA needs the padded extent to fit the windows
/// exactly; ONNX floors (or ceils): unused end padding is dropped, unread
/// input rows are cropped (inH/inW) and ceil_mode pads the end.
std::optional<Window> window(Importer &im, const Node &n, ArrayRef<int64_t> in,
                             ArrayRef<int64_t> kernel) {
  Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  w.stride = im.attrInts(n, "strides").value_or(SmallVector<int64_t>{1, 1});
  w.dilation = im.attrInts(n, "dilations").value_or(SmallVector<int64_t>{1, 1});
  auto p = im.attrInts(n, "pads").value_or(SmallVector<int64_t>{0, 0, 0, 0});
  if (w.kernel.size() != 2 || w.stride.size() != 2 || w.dilation.size() != 2 ||
      p.size() != 4) {
    (void)im.error("only 2-D windows are supported");
    return std::nullopt;
  }
  for (int i = 0; i < 2; ++i)
    if (w.kernel[i] < 1 || w.stride[i] < 1 || w.dilation[i] < 1 || p[i] < 0 ||
        p[i + 2] < 0) {
      (void)im.error("invalid kernel, strides, dilations or pads");
      return std::nullopt;
    }
  std::string autoPad = im.attrString(n, "auto_pad", "NOTSET");
  bool ceil = im.attrInt(n, "ceil_mode", 0);
  int64_t out[2], crop[2];
  for (int i = 0; i < 2; ++i) {
    int64_t size = in[2 + i], s = w.stride[i];
    int64_t span = (w.kernel[i] - 1) * w.dilation[i] + 1;
    if (autoPad == "VALID") {
      p[i] = p[i + 2] = 0;
    } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      int64_t o = (size + s - 1) / s;
      int64_t total = std::max<int64_t>((o - 1) * s + span - size, 0);
      int64_t small = total / 2, big = total - small;
      p[i] = autoPad == "SAME_UPPER" ? small : big;
      p[i + 2] = autoPad == "SAME_UPPER" ? big : small;
    } else if (autoPad != "NOTSET") {
      (void)im.error("auto_pad '" + autoPad + "' is not supported");
      return std::nullopt;
    }
    int64_t avail = size + p[i] + p[i + 2];
    if (avail < span) {
      (void)im.error("the window is larger than the padded input");
      return std::nullopt;
    }
    out[i] = ceil ? (avail - span + s - 1) / s + 1 : (avail - span) / s + 1;
    // A ceil_mode window must start inside the input or its begin padding.
    if (ceil && (out[i] - 1) * s >= size + p[i])
      --out[i];
    int64_t end = p[i + 2] + (out[i] - 1) * s + span - avail;
    crop[i] = end < 0 ? -end : 0;
    p[i + 2] = std::max<int64_t>(end, 0);
  }
  // ONNX pads: [h_begin, w_begin, h_end, w_end]; TOSA: [top, bottom, left,
  // right].
  w.pad = {p[0], p[2], p[1], p[3]};
  w.outH = out[0];
  w.outW = out[1];
  w.inH = in[2] - crop[0];
  w.inW = in[3] - crop[1];
  return w;
}

/// The [N, C, inH, inW] corner of x (the rows and columns the windows read).
Value cropInput(Importer &im, Value x, const Window &w) {
  auto xs = Importer::shape(x);
  if (w.inH == xs[2] && w.inW == xs[3])
    return x;
  SmallVector<int64_t> size = {xs[0], xs[1], w.inH, w.inW};
  return tosa::SliceOp::create(im.b, im.loc, im.tensor(size, Importer::elem(x)),
                               x, im.constShape({0, 0, 0, 0}),
                               im.constShape(size));
}

Value toNHWC(Importer &im, Value v) { return im.transpose(v, {0, 2, 3, 1}); }
Value toNCHW(Importer &im, Value v) { return im.transpose(v, {0, 3, 1, 2}); }

/// The NHWC slice [*, *, *, begin : begin + size] of `v` (NHWC channels or
/// OHWI output channels are dimension 3 resp. 0: `axis`).
Value sliceAxis(Importer &im, Value v, int64_t axis, int64_t begin,
                int64_t size) {
  SmallVector<int64_t> start(Importer::shape(v).size(), 0);
  SmallVector<int64_t> shape(Importer::shape(v));
  start[axis] = begin;
  shape[axis] = size;
  return tosa::SliceOp::create(im.b, im.loc,
                               im.tensor(shape, Importer::elem(v)), v,
                               im.constShape(start), im.constShape(shape));
}

/// Conv with `group` = g: g == 1 is one tosa.conv2d; g == C (one input
/// channel per group) is a tosa.depthwise_conv2d with multiplier OC / C (its
/// output channel c*M + m is ONNX's group c, channel m); otherwise one
/// tosa.conv2d per group on its slice of channels, concatenated.
LogicalResult importConv(Importer &im, const Node &n) {
  Value x = im.input(n, 0), w = im.input(n, 1);
  if (!x || !w)
    return failure();
  auto xs = Importer::shape(x), ws = Importer::shape(w);
  if (xs.size() != 4 || ws.size() != 4)
    return im.error("only 2-D convolutions (NCHW) are supported");
  int64_t group = im.attrInt(n, "group", 1);
  if (group < 1 || xs[1] % group != 0 || ws[0] % group != 0 ||
      ws[1] * group != xs[1])
    return im.error("the group count does not divide the channels");
  auto win = window(im, n, xs, ws.drop_front(2));
  if (!win)
    return failure();
  Type e = Importer::elem(x);
  Value bias = im.hasInput(n, 2) ? im.input(n, 2) : im.splat(0, e, {ws[0]});
  if (!bias)
    return failure();
  Value input = toNHWC(im, cropInput(im, x, *win));
  auto pad = im.b.getDenseI64ArrayAttr(win->pad);
  auto stride = im.b.getDenseI64ArrayAttr(win->stride);
  auto dilation = im.b.getDenseI64ArrayAttr(win->dilation);
  auto conv = [&](Value in, Value weight, Value b, int64_t channels) {
    return tosa::Conv2DOp::create(
        im.b, im.loc, im.tensor({xs[0], win->outH, win->outW, channels}, e), in,
        weight, b, im.zeroPoint(e), im.zeroPoint(e), pad, stride, dilation,
        TypeAttr::get(e), im.b.getBoolAttr(false));
  };
  Value y;
  if (group == 1) {
    y = conv(input, toNHWC(im, w), bias, ws[0]);
  } else if (ws[1] == 1) {
    // [C*M, 1, KH, KW] -> [C, M, KH, KW] -> [KH, KW, C, M].
    int64_t c = xs[1], m = ws[0] / c;
    Value hwcm =
        im.transpose(im.reshape(w, {c, m, ws[2], ws[3]}), {2, 3, 0, 1});
    y = tosa::DepthwiseConv2DOp::create(
        im.b, im.loc, im.tensor({xs[0], win->outH, win->outW, ws[0]}, e), input,
        hwcm, bias, im.zeroPoint(e), im.zeroPoint(e), pad, stride, dilation,
        TypeAttr::get(e), im.b.getBoolAttr(false));
  } else {
    Value ohwi = toNHWC(im, w);
    int64_t in = ws[1], out = ws[0] / group;
    SmallVector<Value> parts;
    for (int64_t g = 0; g < group; ++g)
      parts.push_back(conv(sliceAxis(im, input, 3, g * in, in),
                           sliceAxis(im, ohwi, 0, g * out, out),
                           sliceAxis(im, bias, 0, g * out, out), out));
    y = tosa::ConcatOp::create(
        im.b, im.loc, im.tensor({xs[0], win->outH, win->outW, ws[0]}, e), parts,
        im.b.getI32IntegerAttr(3));
  }
  im.setOutput(n, 0, toNCHW(im, y));
  return success();
}

/// GlobalAveragePool / GlobalMaxPool: a 2-D pool whose window is the whole
/// image (so its gradient follows the pool rules: the max goes to the first
/// maximum, as PyTorch's adaptive_max_pool2d).
template <bool Max>
LogicalResult importGlobalPool(Importer &im, const Node &n) {
  Value x = im.input(n, 0);
  if (!x)
    return failure();
  auto xs = Importer::shape(x);
  if (xs.size() != 4)
    return im.error("only 2-D pools (NCHW) are supported");
  Type e = Importer::elem(x);
  auto outType = im.tensor({xs[0], 1, 1, xs[1]}, e);
  auto kernel = im.b.getDenseI64ArrayAttr({xs[2], xs[3]});
  auto stride = im.b.getDenseI64ArrayAttr({1, 1});
  auto pad = im.b.getDenseI64ArrayAttr({0, 0, 0, 0});
  Value y;
  if (Max)
    y = tosa::MaxPool2dOp::create(im.b, im.loc, outType, toNHWC(im, x), kernel,
                                  stride, pad);
  else
    y = tosa::AvgPool2dOp::create(im.b, im.loc, outType, toNHWC(im, x),
                                  im.zeroPoint(e), im.zeroPoint(e), kernel,
                                  stride, pad, TypeAttr::get(e));
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
  x = cropInput(im, x, *win);
  Value y;
  if (Max) {
    y = tosa::MaxPool2dOp::create(im.b, im.loc, outType, toNHWC(im, x),
                                  im.b.getDenseI64ArrayAttr(win->kernel),
                                  im.b.getDenseI64ArrayAttr(win->stride),
                                  im.b.getDenseI64ArrayAttr(win->pad));
  } else {
    bool padded = llvm::any_of(win->pad, [](int64_t p) { return p != 0; });
    if (padded && im.attrInt(n, "count_include_pad", 0)) {
      // Padding counts: pad with zeros explicitly, then pool unpadded.
      auto xs2 = Importer::shape(x);
      SmallVector<int64_t> paddedShape = {xs2[0], xs2[1],
                                          xs2[2] + win->pad[0] + win->pad[1],
                                          xs2[3] + win->pad[2] + win->pad[3]};
      x = tosa::PadOp::create(
          im.b, im.loc, im.tensor(paddedShape, e), x,
          im.constShape(
              {0, 0, 0, 0, win->pad[0], win->pad[1], win->pad[2], win->pad[3]}),
          im.splat(0, e, {1}));
      win->pad = {0, 0, 0, 0};
    }
    y = tosa::AvgPool2dOp::create(
        im.b, im.loc, outType, toNHWC(im, x), im.zeroPoint(e), im.zeroPoint(e),
        im.b.getDenseI64ArrayAttr(win->kernel),
        im.b.getDenseI64ArrayAttr(win->stride),
        im.b.getDenseI64ArrayAttr(win->pad), TypeAttr::get(e));
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
  t["GlobalMaxPool"] = importGlobalPool<true>;
  t["GlobalAveragePool"] = importGlobalPool<false>;
}
