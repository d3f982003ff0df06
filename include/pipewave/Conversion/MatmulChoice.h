//===- MatmulChoice.h - Which kernel runs each class of matmul --*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Plain C++ (no MLIR/LLVM). `matmul=auto` runs every f32 matmul either on
// the vectorised kernel (pipe-matmul-vectorize) or on OpenBLAS
// (pipe-matmul-to-blas), by the matmul's class:
//
//   layout  which operand is a transposed copy (a linalg.transpose swapping
//           the last two dimensions, as pipe-autodiff's backward makes
//           them): nn (none), tn (A, the weight gradient X^T dY), nt (B,
//           the input gradient dY W^T) or tt (both);
//   shape   of the per-batch problem [M, K] x [K, N]: small when
//           M * N * K <= kSmallMatmulVolume, else skinny-m, skinny-n or
//           skinny-k when that extent (the first of the smallest) is below
//           kSkinnyMatmulExtent, else square.
//
// A class is named LAYOUT-SHAPE, e.g. "nt-skinny-m". A choice is written as
// rules "CLASS:KERNEL" (KERNEL vector or blas) applied in order to the
// built-in default table, later rules overriding earlier ones; CLASS may
// use "*" for its layout, its shape or both ("nt-*", "*-small", "*").
// pipewave-calibrate measures both kernels on one representative shape per
// class (representativeShape) and records the faster one in the device
// file; pipewave-compile turns that record into rules.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_CONVERSION_MATMULCHOICE_H
#define PIPEWAVE_CONVERSION_MATMULCHOICE_H

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipewave {

/// Which operands of a matmul are transposed copies.
enum class MatmulLayout { NN, TN, NT, TT };

/// The shape class of a matmul's per-batch problem.
enum class MatmulShape { Small, SkinnyM, SkinnyN, SkinnyK, Square };

/// The kernels matmul=auto chooses between.
enum class MatmulKernel { Vector, Blas };

inline constexpr int kNumMatmulLayouts = 4;
inline constexpr int kNumMatmulShapes = 5;

/// Below this extent a dimension makes the matmul skinny.
inline constexpr int64_t kSkinnyMatmulExtent = 64;
/// Up to this M * N * K a matmul is small.
inline constexpr int64_t kSmallMatmulVolume = 64 * 64 * 64;

/// A matmul class: its layout and its shape.
struct MatmulClass {
  MatmulLayout layout = MatmulLayout::NN;
  MatmulShape shape = MatmulShape::Square;
};

/// The shape class of an [m, k] x [k, n] problem (see the file comment).
MatmulShape classifyMatmulShape(int64_t m, int64_t n, int64_t k);

/// Whether the permutation `perm` (any container of integers) swaps the
/// last two dimensions and keeps the others: a transpose the matmul
/// lowering folds into a transposed operand.
template <typename Permutation> bool swapsLastTwoAxes(const Permutation &perm) {
  int64_t rank = static_cast<int64_t>(perm.size());
  if (rank < 2 || perm[rank - 2] != rank - 1 || perm[rank - 1] != rank - 2)
    return false;
  for (int64_t i = 0; i < rank - 2; ++i)
    if (perm[i] != i)
      return false;
  return true;
}

/// The layout of a matmul whose A (`transposedA`) and B operands are
/// transposed copies or not.
MatmulLayout matmulLayout(bool transposedA, bool transposedB);

/// "nn", "tn", "nt", "tt"; "small", "skinny-m", ...; "vector", "blas";
/// "nt-skinny-m".
const char *stringify(MatmulLayout layout);
const char *stringify(MatmulShape shape);
const char *stringify(MatmulKernel kernel);
std::string matmulClassName(MatmulClass cls);

/// The inverse of matmulClassName (no wildcards), and of stringify(kernel).
std::optional<MatmulClass> parseMatmulClass(std::string_view name);
std::optional<MatmulKernel> parseMatmulKernel(std::string_view name);

/// The [m, n, k] pipewave-calibrate times for `shape`: well inside the
/// class, the sizes of a 512-wide layer's matmuls at microbatches of 32,
/// and for small matmuls a 128-wide layer's at microbatches of 8.
std::array<int64_t, 3> representativeShape(MatmulShape shape);

/// The kernel of every matmul class.
class MatmulChoice {
public:
  /// The built-in default, for machines without a calibration: the table
  /// pipewave-calibrate measured on the AMD Zen 4 build machine
  /// (docs/bench.md, "Matmul kernel choice per machine"): blas for
  /// nt-skinny-m, tn-skinny-n and every tt class, vector for the others.
  MatmulChoice();

  MatmulKernel kernel(MatmulClass cls) const;
  void set(MatmulClass cls, MatmulKernel kernel);

  /// Applies `rules` in order to this table; false with `error` saying
  /// which rule is malformed (the table is then unspecified).
  bool apply(const std::vector<std::string> &rules, std::string &error);

  /// One rule per class, in a fixed order: applied to any table, they give
  /// this one.
  std::vector<std::string> rules() const;

  /// How many classes run on `kernel`.
  int count(MatmulKernel kernel) const;

  bool operator==(const MatmulChoice &other) const {
    return table == other.table;
  }

private:
  std::array<MatmulKernel, kNumMatmulLayouts * kNumMatmulShapes> table;
};

} // namespace pipewave

#endif // PIPEWAVE_CONVERSION_MATMULCHOICE_H
