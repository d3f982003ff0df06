//===- Models.cpp - Microbenchmark models of pipewave-calibrate -----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "Models.h"

namespace pipewave::calibrate {

namespace {

std::string tensor(const std::vector<int64_t> &shape) {
  std::string text = "tensor<";
  for (int64_t dim : shape)
    text += std::to_string(dim) + "x";
  return text + "f32>";
}

std::string shapeConst(const std::string &name,
                       const std::vector<int64_t> &shape) {
  std::string values;
  for (int64_t dim : shape)
    values += (values.empty() ? "" : ", ") + std::to_string(dim);
  return "  " + name + " = tosa.const_shape {values = dense<[" + values +
         "]> : tensor<" + std::to_string(shape.size()) +
         "xindex>} : () -> !tosa.shape<" + std::to_string(shape.size()) + ">\n";
}

const char *kConsts =
    "  %zp = \"tosa.const\"() <{values = dense<0.0> : tensor<1xf32>}> : () "
    "-> tensor<1xf32>\n"
    "  %shift = \"tosa.const\"() <{values = dense<0> : tensor<1xi8>}> : () "
    "-> tensor<1xi8>\n";

} // namespace

Model elementwiseChain(const std::string &op, int64_t rows, int64_t cols,
                       int count) {
  std::string t = tensor({rows, cols});
  Model model;
  model.data = {{"x", {rows, cols}}};
  model.text =
      "func.func @main(%x: " + t + " {pipe.name = \"x\"}) -> " + t + " {\n";
  std::string previous = "%x";
  for (int i = 1; i <= count; ++i) {
    std::string h = "%h" + std::to_string(i);
    if (op == "tosa.add")
      model.text += "  " + h + " = tosa.add " + previous + ", %x : (" + t +
                    ", " + t + ") -> " + t + "\n";
    else
      model.text += "  " + h + " = " + op + " " + previous + " : (" + t +
                    ") -> " + t + "\n";
    previous = h;
  }
  model.text += "  return " + previous + " : " + t + "\n}\n";
  return model;
}

Model reduction(int64_t rows, int64_t cols, int axis) {
  std::string in = tensor({rows, cols});
  std::string out = axis == 0 ? tensor({1, cols}) : tensor({rows, 1});
  Model model;
  model.data = {{"x", {rows, cols}}};
  model.text = "func.func @main(%x: " + in + " {pipe.name = \"x\"}) -> " + out +
               " {\n  %r = tosa.reduce_sum %x {axis = " + std::to_string(axis) +
               " : i32} : (" + in + ") -> " + out + "\n  return %r : " + out +
               "\n}\n";
  return model;
}

Model transpose(int64_t rows, int64_t cols) {
  std::string in = tensor({rows, cols}), out = tensor({cols, rows});
  Model model;
  model.data = {{"x", {rows, cols}}};
  model.text = "func.func @main(%x: " + in + " {pipe.name = \"x\"}) -> " + out +
               " {\n  %t = tosa.transpose %x {perms = array<i32: 1, " +
               "0>} : (" + in + ") -> " + out + "\n  return %t : " + out +
               "\n}\n";
  return model;
}

/// The body shared by matmul() and trainedMatmul(): %out = x @ w, [m, n].
static std::string matmulBody(int64_t m, int64_t n, int64_t k) {
  std::string x3 = tensor({1, m, k}), w = tensor({1, k, n}),
              y3 = tensor({1, m, n});
  std::string text = kConsts;
  text += shapeConst("%s3", {1, m, k}) + shapeConst("%s2", {m, n});
  text += "  %a = tosa.reshape %x, %s3 : (" + tensor({m, k}) +
          ", !tosa.shape<3>) -> " + x3 + "\n";
  text += "  %mm = tosa.matmul %a, %w, %zp, %zp : (" + x3 + ", " + w +
          ", tensor<1xf32>, tensor<1xf32>) -> " + y3 + "\n";
  text += "  %out = tosa.reshape %mm, %s2 : (" + y3 + ", !tosa.shape<2>) -> " +
          tensor({m, n}) + "\n";
  return text;
}

Model matmul(int64_t m, int64_t n, int64_t k) {
  Model model;
  model.data = {{"x", {m, k}}};
  model.text = "func.func @main(%x: " + tensor({m, k}) +
               " {pipe.name = \"x\"}, %w: " + tensor({1, k, n}) +
               " {pipe.param, pipe.name = \"w\"}) -> " + tensor({m, n}) +
               " {\n" + matmulBody(m, n, k) +
               "  return %out : " + tensor({m, n}) + "\n}\n";
  return model;
}

Model layoutMatmul(int64_t m, int64_t n, int64_t k, bool transposeA,
                   bool transposeB) {
  std::vector<int64_t> xShape = transposeA ? std::vector<int64_t>{1, k, m}
                                           : std::vector<int64_t>{1, m, k};
  std::vector<int64_t> wShape = transposeB ? std::vector<int64_t>{1, n, k}
                                           : std::vector<int64_t>{1, k, n};
  std::string a3 = tensor({1, m, k}), b3 = tensor({1, k, n}),
              y3 = tensor({1, m, n});
  Model model;
  model.data = {{"x", xShape}};
  model.text = "func.func @main(%x: " + tensor(xShape) +
               " {pipe.name = \"x\"}, %w: " + tensor(wShape) +
               " {pipe.param, pipe.name = \"w\"}) -> " + y3 + " {\n" + kConsts;
  std::string a = "%x", b = "%w";
  if (transposeA) {
    model.text +=
        "  %xt = tosa.transpose %x {perms = array<i32: 0, 2, 1>} : (" +
        tensor(xShape) + ") -> " + a3 + "\n";
    a = "%xt";
  }
  if (transposeB) {
    model.text +=
        "  %wt = tosa.transpose %w {perms = array<i32: 0, 2, 1>} : (" +
        tensor(wShape) + ") -> " + b3 + "\n";
    b = "%wt";
  }
  model.text += "  %mm = tosa.matmul " + a + ", " + b + ", %zp, %zp : (" + a3 +
                ", " + b3 + ", tensor<1xf32>, tensor<1xf32>) -> " + y3 +
                "\n  return %mm : " + y3 + "\n}\n";
  return model;
}

Model matmulChain(int count, bool elementwiseBetween) {
  const int64_t m = 4, n = 8;
  std::string x = tensor({m, n}), x3 = tensor({1, m, n}), w = tensor({1, n, n});
  Model model;
  model.data = {{"x", {m, n}}};
  model.text = "func.func @main(%x: " + x + " {pipe.name = \"x\"}, %w: " + w +
               " {pipe.param, pipe.name = \"w\"}) -> " + x3 + " {\n" + kConsts +
               shapeConst("%s3", {1, m, n});
  model.text += "  %h0 = tosa.reshape %x, %s3 : (" + x +
                ", !tosa.shape<3>) -> " + x3 + "\n";
  for (int i = 1; i <= count; ++i) {
    std::string in = "%h" + std::to_string(i - 1);
    if (elementwiseBetween) {
      // An element-wise op whose only user is the matmul: a kernel (loop
      // nest) of its own, fused with nothing.
      model.text += "  %e" + std::to_string(i) + " = tosa.abs " + in + " : (" +
                    x3 + ") -> " + x3 + "\n";
      in = "%e" + std::to_string(i);
    }
    model.text += "  %h" + std::to_string(i) + " = tosa.matmul " + in +
                  ", %w, %zp, %zp : (" + x3 + ", " + w +
                  ", tensor<1xf32>, tensor<1xf32>) -> " + x3 + "\n";
  }
  model.text += "  return %h" + std::to_string(count) + " : " + x3 + "\n}\n";
  return model;
}

Model weightChain(int count, bool distinct, int64_t m, int64_t side) {
  std::string x = tensor({1, m, side}), w = tensor({1, side, side});
  Model model;
  model.data = {{"x", {1, m, side}}};
  model.text = "func.func @main(%x: " + x + " {pipe.name = \"x\"}";
  for (int i = 0; i < (distinct ? count : 1); ++i)
    model.text += ", %w" + std::to_string(i) + ": " + w +
                  " {pipe.param, pipe.name = \"w" + std::to_string(i) + "\"}";
  model.text += ") -> " + x + " {\n" + kConsts;
  std::string previous = "%x";
  for (int i = 0; i < count; ++i) {
    std::string h = "%h" + std::to_string(i);
    model.text += "  " + h + " = tosa.matmul " + previous + ", %w" +
                  std::to_string(distinct ? i : 0) + ", %zp, %zp : (" + x +
                  ", " + w + ", tensor<1xf32>, tensor<1xf32>) -> " + x + "\n";
    previous = h;
  }
  model.text += "  return " + previous + " : " + x + "\n}\n";
  return model;
}

/// The squared-error loss of %out against %y, both [m, n], returned.
static std::string squaredErrorTail(int64_t m, int64_t n) {
  std::string out = tensor({m, n});
  std::string text =
      "  %d = tosa.sub %out, %y : (" + out + ", " + out + ") -> " + out + "\n";
  text += "  %sq = tosa.mul %d, %d, %shift : (" + out + ", " + out +
          ", tensor<1xi8>) -> " + out + "\n";
  text += "  %r0 = tosa.reduce_sum %sq {axis = 0 : i32} : (" + out + ") -> " +
          tensor({1, n}) + "\n";
  text += "  %r1 = tosa.reduce_sum %r0 {axis = 1 : i32} : (" + tensor({1, n}) +
          ") -> tensor<1x1xf32>\n";
  text += "  %s0 = tosa.const_shape {values = dense<> : "
          "tensor<0xindex>} : () -> !tosa.shape<0>\n";
  text += "  %loss = tosa.reshape %r1, %s0 : (tensor<1x1xf32>, "
          "!tosa.shape<0>) -> tensor<f32>\n  return %loss : "
          "tensor<f32>\n}\n";
  return text;
}

Model trainedMatmul(int64_t n, int64_t k) {
  const int64_t m = 4;
  std::string out = tensor({m, n});
  Model model;
  model.training = true;
  model.data = {{"x", {m, k}}, {"y", {m, n}}};
  model.text = "func.func @main(%x: " + tensor({m, k}) +
               " {pipe.name = \"x\"}, %y: " + out +
               " {pipe.name = \"y\"}, %w: " + tensor({1, k, n}) +
               " {pipe.param, pipe.name = \"w\"}) -> tensor<f32> {\n" +
               matmulBody(m, n, k) + squaredErrorTail(m, n);
  return model;
}

Model trainedWeightChain(int count, int64_t side) {
  const int64_t m = 4;
  std::string x = tensor({m, side}), x3 = tensor({1, m, side}),
              w = tensor({1, side, side});
  Model model;
  model.training = true;
  model.data = {{"x", {m, side}}, {"y", {m, side}}};
  model.text = "func.func @main(%x: " + x + " {pipe.name = \"x\"}, %y: " + x +
               " {pipe.name = \"y\"}";
  for (int i = 0; i < count; ++i)
    model.text += ", %w" + std::to_string(i) + ": " + w +
                  " {pipe.param, pipe.name = \"w" + std::to_string(i) + "\"}";
  model.text += ") -> tensor<f32> {\n" + std::string(kConsts) +
                shapeConst("%s3", {1, m, side}) + shapeConst("%s2", {m, side});
  model.text += "  %h0 = tosa.reshape %x, %s3 : (" + x +
                ", !tosa.shape<3>) -> " + x3 + "\n";
  for (int i = 0; i < count; ++i)
    model.text += "  %h" + std::to_string(i + 1) + " = tosa.matmul %h" +
                  std::to_string(i) + ", %w" + std::to_string(i) +
                  ", %zp, %zp : (" + x3 + ", " + w +
                  ", tensor<1xf32>, tensor<1xf32>) -> " + x3 + "\n";
  model.text += "  %out = tosa.reshape %h" + std::to_string(count) +
                ", %s2 : (" + x3 + ", !tosa.shape<2>) -> " + x + "\n";
  model.text += squaredErrorTail(m, side);
  return model;
}

} // namespace pipewave::calibrate
