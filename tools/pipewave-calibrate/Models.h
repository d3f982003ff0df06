//===- Models.h - Microbenchmark models of pipewave-calibrate ---*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The tiny TOSA models pipewave-calibrate compiles and runs (one stage, one
// rank) to time what the CPU target generates. Each model's entry is @main
// with its data inputs named "x" (and "y"), batch on dimension 0.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_TOOLS_CALIBRATE_MODELS_H
#define PIPEWAVE_TOOLS_CALIBRATE_MODELS_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pipewave::calibrate {

/// A model and the shapes of its data inputs.
struct Model {
  std::string text;
  std::vector<std::pair<std::string, std::vector<int64_t>>> data;
  /// Trained with an optimizer (else compiled --inference).
  bool training = false;
  /// Extra pipewave-compile flags (e.g. --matmul=blas).
  std::string compileFlags;
};

/// `count` chained element-wise ops `op` (tosa.add or tosa.exp) on an
/// [rows, cols] input: h = op(h, x) or h = op(h).
Model elementwiseChain(const std::string &op, int64_t rows, int64_t cols,
                       int count);

/// A chain of `count` tosa.matmul of [1, 4, 8] by a [1, 8, 8] parameter:
/// ops that each keep a loop nest and a buffer of their own. With
/// `elementwiseBetween`, a tosa.abs before each matmul (an element-wise op
/// that nothing fuses with: a kernel of its own on a GPU).
Model matmulChain(int count, bool elementwiseBetween = false);

/// A chain of `count` tosa.matmul of [1, m, side] by [1, side, side]
/// parameters: `count` distinct ones (`distinct`), whose bytes no cache
/// keeps once they are large enough, or one parameter for every matmul.
Model weightChain(int count, bool distinct, int64_t m, int64_t side);

/// One tosa.reduce_sum over dimension `axis` (0 or 1) of [rows, cols].
Model reduction(int64_t rows, int64_t cols, int axis = 1);

/// One tosa.transpose of [rows, cols].
Model transpose(int64_t rows, int64_t cols);

/// One tosa.matmul: x [m, k] times a parameter [1, k, n].
Model matmul(int64_t m, int64_t n, int64_t k);

/// One tosa.matmul of [1, m, k] by [1, k, n], either operand (`transposeA`,
/// `transposeB`) a tosa.transpose of a [1, k, m] input / [1, n, k]
/// parameter, as pipe-autodiff's backward computes X^T dY and dY W^T.
Model layoutMatmul(int64_t m, int64_t n, int64_t k, bool transposeA,
                   bool transposeB);

/// A trained x [4, k] times a parameter [1, k, n] with a squared-error loss
/// (times its optimizer step over k x n parameters).
Model trainedMatmul(int64_t n, int64_t k);

/// A trained x [4, side] through `count` matmuls by distinct [1, side, side]
/// parameters, with a squared-error loss (times Adam over many tensors).
Model trainedWeightChain(int count, int64_t side);

} // namespace pipewave::calibrate

#endif // PIPEWAVE_TOOLS_CALIBRATE_MODELS_H
