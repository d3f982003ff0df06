//===- Recurrent.cpp - ONNX LSTM, GRU and RNN unrolled into TOSA ----------===//
//
// Part of the pipewave project.
//
// The sequence length is static, so a recurrent node becomes its time steps,
// one after the other: slices, matmuls, adds and the gate activations, which
// pipe-autodiff, pipe-partition and pipe-microbatch handle like any other
// TOSA. The input projection of all time steps is one matmul; each step adds
// the recurrent projection of the previous hidden state and applies the
// gates (ONNX's equations, default activations).
//
// Values are kept batch-major ([batch, seq, ...]) inside: a time-major input
// ([seq, batch, ...], layout 0) is transposed back to batch-major, which
// cancels the transpose PyTorch's export puts in front of the node, and the
// time-major outputs are transposes of batch-major values, which cancel the
// transpose behind it. The batch then stays the outermost dimension, as
// pipe-microbatch needs.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

using namespace mlir;
using namespace pipewave::onnximport;

namespace {

enum class Cell { RNN, GRU, LSTM };

/// Number of gates (rows of W per hidden unit) and the default activations.
int64_t gateCount(Cell cell) {
  switch (cell) {
  case Cell::RNN:
    return 1;
  case Cell::GRU:
    return 3;
  case Cell::LSTM:
    return 4;
  }
  return 0;
}

ArrayRef<StringRef> defaultActivations(Cell cell) {
  static const StringRef rnn[] = {"Tanh"};
  static const StringRef gru[] = {"Sigmoid", "Tanh"};
  static const StringRef lstm[] = {"Sigmoid", "Tanh", "Tanh"};
  switch (cell) {
  case Cell::RNN:
    return rnn;
  case Cell::GRU:
    return gru;
  case Cell::LSTM:
    return lstm;
  }
  return {};
}

/// Whether `v` is a constant zero, possibly tiled or reshaped (what
/// PyTorch's export makes of a missing initial state: Expand of zeros).
bool isZero(Value v) {
  while (Operation *op = v.getDefiningOp()) {
    if (isa<tosa::TileOp, tosa::ReshapeOp, tosa::IdentityOp>(op)) {
      v = op->getOperand(0);
      continue;
    }
    auto c = dyn_cast<tosa::ConstOp>(op);
    if (!c)
      return false;
    auto values = dyn_cast<DenseFPElementsAttr>(c.getValues());
    return values && values.isSplat() &&
           values.getSplatValue<APFloat>().isZero();
  }
  return false;
}

/// One recurrent node being unrolled.
class Unroller {
public:
  Unroller(Importer &im, const Node &n, Cell cell)
      : im(im), n(n), cell(cell), gates(gateCount(cell)) {}

  LogicalResult run();

private:
  Importer &im;
  const Node &n;
  Cell cell;
  int64_t gates;
  int64_t seq = 0, batch = 0, inputSize = 0, hidden = 0, dirs = 1;
  bool batchFirst = false, linearBeforeReset = false;
  Type e;

  Value slice(Value v, ArrayRef<int64_t> start, ArrayRef<int64_t> size) {
    if (!v || (Importer::shape(v) == size && llvm::all_equal(start) &&
               start.front() == 0))
      return v;
    return tosa::SliceOp::create(im.b, im.loc, im.tensor(size, e), v,
                                 im.constShape(start), im.constShape(size));
  }
  /// Columns [k*hidden, (k+count)*hidden) of a [batch, gates*hidden] value.
  Value gate(Value v, int64_t k, int64_t count = 1) {
    if (!v)
      return {};
    return slice(v, {0, k * hidden}, {Importer::shape(v)[0], count * hidden});
  }
  Value concat(ArrayRef<Value> vs, int32_t axis) {
    if (vs.empty() || !vs.front() || vs.size() == 1)
      return vs.empty() ? Value() : vs.front();
    SmallVector<int64_t> s(Importer::shape(vs.front()));
    s[axis] = 0;
    for (Value v : vs) {
      if (!v)
        return {};
      s[axis] += Importer::shape(v)[axis];
    }
    return tosa::ConcatOp::create(im.b, im.loc, im.tensor(s, e), vs, axis);
  }
  /// x [rows, k] times w [1, k, cols]: [rows, cols].
  Value matmul(Value x, Value w) {
    if (!x || !w)
      return {};
    int64_t rows = Importer::shape(x)[0], k = Importer::shape(x)[1];
    int64_t cols = Importer::shape(w)[2];
    Value r = tosa::MatMulOp::create(
        im.b, im.loc, im.tensor({1, rows, cols}, e),
        im.reshape(x, {1, rows, k}), w, im.zeroPoint(e), im.zeroPoint(e));
    return im.reshape(r, {rows, cols});
  }
  Value sigmoid(Value v) { return im.unary<tosa::SigmoidOp>(v); }
  Value tanh(Value v) { return im.unary<tosa::TanhOp>(v); }

  LogicalResult checkAttributes();
  /// Direction `d` of a [dirs, rows, k] weight, transposed: [1, k, rows].
  Value weightT(Value w, int64_t d) {
    auto s = Importer::shape(w);
    return im.transpose(slice(w, {d, 0, 0}, {1, s[1], s[2]}), {0, 2, 1});
  }
  /// Row `d` of a [dirs, n] tensor, columns from `from` on: [1, count].
  Value row(Value v, int64_t d, int64_t from, int64_t count) {
    return slice(v, {d, from}, {1, count});
  }
  /// One direction: the hidden states of every step ([batch, hidden] each,
  /// in time order) and the last cell state (LSTM).
  LogicalResult direction(int64_t d, bool reverse, Value xs, Value w, Value r,
                          Value bias, Value h, Value c, Value p,
                          SmallVector<Value> &hs, Value &lastC);
  /// One time step: `x` is its input projection plus the biases outside the
  /// recurrence; `h` and `c` (null: zero) become the new states. `rAux` is
  /// the GRU candidate's recurrent weight (linear_before_reset = 0) or bias
  /// (= 1).
  Value step(Value x, Value rT, Value rAux, Value &h, Value &c, Value p,
             int64_t d);
};

LogicalResult Unroller::checkAttributes() {
  std::string dir = im.attrString(n, "direction", "forward");
  if (dir == "bidirectional")
    dirs = 2;
  else if (dir != "forward" && dir != "reverse")
    return im.error("direction '" + dir + "' is not supported");
  if (im.attr(n, "clip"))
    return im.error("the 'clip' attribute is not supported (cell clipping)");
  if (im.attrInt(n, "input_forget", 0) != 0)
    return im.error("input_forget = 1 is not supported");
  int64_t layout = im.attrInt(n, "layout", 0);
  if (layout != 0 && layout != 1)
    return im.error("layout must be 0 or 1");
  batchFirst = layout == 1;
  linearBeforeReset = im.attrInt(n, "linear_before_reset", 0) != 0;
  if (const onnx::AttributeProto *a = im.attr(n, "activations")) {
    ArrayRef<StringRef> want = defaultActivations(cell);
    bool same = a->strings_size() == (int)want.size() * dirs;
    for (int i = 0; same && i < a->strings_size(); ++i)
      same = StringRef(a->strings(i)).equals_insensitive(want[i % want.size()]);
    if (!same) {
      std::string names;
      for (const std::string &s : a->strings())
        names += (names.empty() ? "" : ", ") + s;
      std::string dflt;
      for (StringRef s : want)
        dflt += (dflt.empty() ? "" : ", ") + s.str();
      return im.error("activations [" + names +
                      "] are not supported (only the default " + dflt +
                      " is supported)");
    }
  }
  return success();
}

Value Unroller::step(Value x, Value rT, Value rAux, Value &h, Value &c, Value p,
                     int64_t d) {
  // x: this step's input projection plus biases, [batch, gates*hidden].
  if (cell == Cell::RNN) {
    h = tanh(h ? im.add(x, matmul(h, rT)) : x);
    return h;
  }
  if (cell == Cell::LSTM) {
    Value g = h ? im.add(x, matmul(h, rT)) : x;
    // ONNX's gate order is i, o, f, c; the peepholes' i, o, f.
    auto peep = [&](Value pre, int64_t k, Value state) {
      if (!p || !state)
        return pre;
      return im.add(pre, im.mul(row(p, d, k * hidden, hidden), state));
    };
    Value i = sigmoid(peep(gate(g, 0), 0, c));
    Value f = sigmoid(peep(gate(g, 2), 2, c));
    Value cand = tanh(gate(g, 3));
    Value next = im.mul(i, cand);
    if (c)
      next = im.add(im.mul(f, c), next);
    c = next;
    Value o = sigmoid(peep(gate(g, 1), 1, c));
    h = im.mul(o, tanh(c));
    return h;
  }
  // GRU: gates z, r, h.
  Value z, r, cand;
  Value xh = gate(x, 2);
  if (linearBeforeReset) {
    // r * (h Rh^T + Rbh); rT holds all three gates, rAux is Rbh.
    Value hp = h ? matmul(h, rT) : Value();
    z = sigmoid(h ? im.add(gate(x, 0), gate(hp, 0)) : gate(x, 0));
    r = sigmoid(h ? im.add(gate(x, 1), gate(hp, 1)) : gate(x, 1));
    Value hh = h ? im.add(gate(hp, 2), rAux) : rAux;
    cand = tanh(im.add(xh, im.mul(r, hh)));
  } else {
    // (r * h) Rh^T; Rbh is in x. rT holds z, r; rAux is Rh^T.
    Value zr = h ? im.add(gate(x, 0, 2), matmul(h, rT)) : gate(x, 0, 2);
    z = sigmoid(gate(zr, 0));
    r = sigmoid(gate(zr, 1));
    cand = tanh(h ? im.add(xh, matmul(im.mul(r, h), rAux)) : xh);
  }
  Value one = im.scalarLike(1.0, e, 2);
  Value next = im.mul(im.sub(one, z), cand);
  if (h)
    next = im.add(next, im.mul(z, h));
  h = next;
  return h;
}

LogicalResult Unroller::direction(int64_t d, bool reverse, Value xs, Value w,
                                  Value r, Value bias, Value h, Value c,
                                  Value p, SmallVector<Value> &hs,
                                  Value &lastC) {
  int64_t gh = gates * hidden;
  // The input projection of every step at once: [batch, seq, gates*hidden].
  Value proj = matmul(im.reshape(xs, {batch * seq, inputSize}), weightT(w, d));
  if (!proj)
    return failure();
  proj = im.reshape(proj, {batch, seq, gh});
  // Biases outside the recurrence; for a GRU the reset gate's recurrent
  // bias stays inside when linear_before_reset = 1.
  Value rT = weightT(r, d), rAux;
  if (bias) {
    Value wb = row(bias, d, 0, gh), rb = row(bias, d, gh, gh);
    Value outside = im.add(wb, rb);
    if (cell == Cell::GRU && linearBeforeReset) {
      outside = concat({gate(outside, 0, 2), gate(wb, 2)}, 1);
      rAux = gate(rb, 2);
    }
    proj = im.add(proj, im.reshape(outside, {1, 1, gh}));
  } else if (cell == Cell::GRU && linearBeforeReset) {
    rAux = im.splat(0.0, e, {1, hidden});
  }
  if (cell == Cell::GRU && !linearBeforeReset) {
    // z and r from one product; the candidate's from another.
    rAux = slice(rT, {0, 0, 2 * hidden}, {1, hidden, hidden});
    rT = slice(rT, {0, 0, 0}, {1, hidden, 2 * hidden});
  }
  if (h)
    h = im.reshape(slice(h, {d, 0, 0}, {1, batch, hidden}), {batch, hidden});
  if (c)
    c = im.reshape(slice(c, {d, 0, 0}, {1, batch, hidden}), {batch, hidden});
  hs.assign(seq, Value());
  for (int64_t k = 0; k < seq; ++k) {
    int64_t t = reverse ? seq - 1 - k : k;
    Value x = im.reshape(slice(proj, {0, t, 0}, {batch, 1, gh}), {batch, gh});
    hs[t] = step(x, rT, rAux, h, c, p, d);
    if (!hs[t])
      return failure();
  }
  lastC = c;
  return success();
}

LogicalResult Unroller::run() {
  if (failed(checkAttributes()))
    return failure();
  Value x = im.input(n, 0), w = im.input(n, 1), r = im.input(n, 2);
  if (!x || !w || !r)
    return failure();
  e = Importer::elem(x);
  if (!isa<FloatType>(e))
    return im.error("only floating-point inputs are supported");
  if (Importer::shape(x).size() != 3)
    return im.error("X must have rank 3");
  hidden = im.attrInt(n, "hidden_size", 0);
  auto xs = Importer::shape(x);
  seq = xs[batchFirst ? 1 : 0];
  batch = xs[batchFirst ? 0 : 1];
  inputSize = xs[2];
  int64_t gh = gates * hidden;
  auto expect = [&](Value v, StringRef name,
                    ArrayRef<int64_t> want) -> LogicalResult {
    if (Importer::shape(v) == want)
      return success();
    std::string s;
    for (int64_t k : want)
      s += (s.empty() ? "" : ", ") + std::to_string(k);
    return im.error(name + " must have shape [" + s + "]");
  };
  if (hidden <= 0)
    return im.error("hidden_size must be given and positive");
  if (failed(expect(w, "W", {dirs, gh, inputSize})) ||
      failed(expect(r, "R", {dirs, gh, hidden})))
    return failure();
  Value bias, h, c, p;
  if (im.hasInput(n, 3)) {
    bias = im.input(n, 3);
    if (!bias || failed(expect(bias, "B", {dirs, 2 * gh})))
      return failure();
  }
  if (im.hasInput(n, 4)) {
    auto lens = im.constInts(n, 4);
    if (!lens)
      return im.error("sequence_lens that is not a constant is not supported "
                      "(the sequence length is static)");
    for (int64_t len : *lens)
      if (len != seq)
        return im.error("sequence_lens with a length other than the "
                        "sequence length " +
                        Twine(seq) + " is not supported (got " + Twine(len) +
                        "; the sequence length is static)");
  }
  SmallVector<int64_t> stateShape =
      batchFirst ? SmallVector<int64_t>{batch, dirs, hidden}
                 : SmallVector<int64_t>{dirs, batch, hidden};
  auto state = [&](int i, StringRef name, Value &v) -> LogicalResult {
    if (!im.hasInput(n, i))
      return success();
    v = im.input(n, i);
    if (!v || failed(expect(v, name, stateShape)))
      return failure();
    if (isZero(v))
      v = {};
    else if (batchFirst)
      v = im.transpose(v, {1, 0, 2});
    return success();
  };
  if (failed(state(5, "initial_h", h)))
    return failure();
  if (cell == Cell::LSTM) {
    if (failed(state(6, "initial_c", c)))
      return failure();
    if (im.hasInput(n, 7)) {
      p = im.input(n, 7);
      if (!p || failed(expect(p, "P", {dirs, 3 * hidden})))
        return failure();
    }
  }

  // Batch-major input [batch, seq, input].
  Value xbm = batchFirst ? x : im.transpose(x, {1, 0, 2});
  bool reverse = im.attrString(n, "direction", "forward") == "reverse";
  SmallVector<Value> ys, lastH, lastC;
  for (int64_t d = 0; d < dirs; ++d) {
    SmallVector<Value> hs;
    Value cEnd;
    if (failed(direction(d, reverse || d == 1, xbm, w, r, bias, h, c, p, hs,
                         cEnd)))
      return failure();
    SmallVector<Value> steps;
    for (Value v : hs)
      steps.push_back(im.reshape(v, {batch, 1, 1, hidden}));
    ys.push_back(concat(steps, 1));
    // The last step in processing order.
    lastH.push_back(hs[reverse || d == 1 ? 0 : seq - 1]);
    lastC.push_back(cEnd);
  }

  // Y: [seq, dirs, batch, hidden] or (layout 1) [batch, seq, dirs, hidden].
  Value ybm = concat(ys, 2);
  Value y;
  if (batchFirst)
    y = ybm;
  else if (dirs == 1)
    y = im.reshape(
        im.transpose(im.reshape(ybm, {batch, seq, hidden}), {1, 0, 2}),
        {seq, 1, batch, hidden});
  else
    y = im.transpose(ybm, {1, 2, 0, 3});
  // Y_h, Y_c: [dirs, batch, hidden] or (layout 1) [batch, dirs, hidden].
  auto last = [&](ArrayRef<Value> vs) {
    SmallVector<Value> parts;
    for (Value v : vs)
      parts.push_back(
          im.reshape(v, batchFirst ? SmallVector<int64_t>{batch, 1, hidden}
                                   : SmallVector<int64_t>{1, batch, hidden}));
    return concat(parts, batchFirst ? 1 : 0);
  };
  Value yh = last(lastH);
  if (!y || !yh)
    return failure();
  im.setOutput(n, 0, y);
  im.setOutput(n, 1, yh);
  if (cell == Cell::LSTM) {
    Value yc = last(lastC);
    if (!yc)
      return failure();
    im.setOutput(n, 2, yc);
  }
  return success();
}

template <Cell cell>
LogicalResult importRecurrent(Importer &im, const Node &n) {
  return Unroller(im, n, cell).run();
}

} // namespace

void pipewave::onnximport::populateRecurrentOps(OpTable &t) {
  t["LSTM"] = importRecurrent<Cell::LSTM>;
  t["GRU"] = importRecurrent<Cell::GRU>;
  t["RNN"] = importRecurrent<Cell::RNN>;
}
