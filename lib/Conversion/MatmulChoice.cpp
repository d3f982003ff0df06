//===- MatmulChoice.cpp - Which kernel runs each class of matmul ----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Conversion/MatmulChoice.h"

#include <algorithm>

namespace pipewave {

namespace {

constexpr std::array<MatmulLayout, kNumMatmulLayouts> kLayouts = {
    MatmulLayout::NN, MatmulLayout::TN, MatmulLayout::NT, MatmulLayout::TT};
constexpr std::array<MatmulShape, kNumMatmulShapes> kShapes = {
    MatmulShape::Small, MatmulShape::SkinnyM, MatmulShape::SkinnyN,
    MatmulShape::SkinnyK, MatmulShape::Square};

int indexOf(MatmulClass cls) {
  return static_cast<int>(cls.layout) * kNumMatmulShapes +
         static_cast<int>(cls.shape);
}

std::optional<MatmulLayout> parseLayout(std::string_view text) {
  for (MatmulLayout layout : kLayouts)
    if (text == stringify(layout))
      return layout;
  return std::nullopt;
}

std::optional<MatmulShape> parseShape(std::string_view text) {
  for (MatmulShape shape : kShapes)
    if (text == stringify(shape))
      return shape;
  return std::nullopt;
}

} // namespace

MatmulShape classifyMatmulShape(int64_t m, int64_t n, int64_t k) {
  if (m * n * k <= kSmallMatmulVolume)
    return MatmulShape::Small;
  int64_t least = std::min({m, n, k});
  if (least >= kSkinnyMatmulExtent)
    return MatmulShape::Square;
  if (m == least)
    return MatmulShape::SkinnyM;
  return n == least ? MatmulShape::SkinnyN : MatmulShape::SkinnyK;
}

MatmulLayout matmulLayout(bool transposedA, bool transposedB) {
  if (transposedA)
    return transposedB ? MatmulLayout::TT : MatmulLayout::TN;
  return transposedB ? MatmulLayout::NT : MatmulLayout::NN;
}

const char *stringify(MatmulLayout layout) {
  switch (layout) {
  case MatmulLayout::NN:
    return "nn";
  case MatmulLayout::TN:
    return "tn";
  case MatmulLayout::NT:
    return "nt";
  case MatmulLayout::TT:
    return "tt";
  }
  return "";
}

const char *stringify(MatmulShape shape) {
  switch (shape) {
  case MatmulShape::Small:
    return "small";
  case MatmulShape::SkinnyM:
    return "skinny-m";
  case MatmulShape::SkinnyN:
    return "skinny-n";
  case MatmulShape::SkinnyK:
    return "skinny-k";
  case MatmulShape::Square:
    return "square";
  }
  return "";
}

const char *stringify(MatmulKernel kernel) {
  return kernel == MatmulKernel::Vector ? "vector" : "blas";
}

std::string matmulClassName(MatmulClass cls) {
  return std::string(stringify(cls.layout)) + "-" + stringify(cls.shape);
}

std::optional<MatmulClass> parseMatmulClass(std::string_view name) {
  size_t dash = name.find('-');
  if (dash == std::string_view::npos)
    return std::nullopt;
  std::optional<MatmulLayout> layout = parseLayout(name.substr(0, dash));
  std::optional<MatmulShape> shape = parseShape(name.substr(dash + 1));
  if (!layout || !shape)
    return std::nullopt;
  return MatmulClass{*layout, *shape};
}

std::optional<MatmulKernel> parseMatmulKernel(std::string_view name) {
  if (name == "vector")
    return MatmulKernel::Vector;
  if (name == "blas")
    return MatmulKernel::Blas;
  return std::nullopt;
}

std::array<int64_t, 3> representativeShape(MatmulShape shape) {
  switch (shape) {
  case MatmulShape::Small:
    // A small matmul is one of few rows (a small microbatch) more often than
    // one of narrow features; with few rows a transposed weight's copy,
    // which the vectorised kernel makes, costs more than the product.
    return {8, 128, 128};
  case MatmulShape::SkinnyM:
    return {32, 512, 512};
  case MatmulShape::SkinnyN:
    return {512, 32, 512};
  case MatmulShape::SkinnyK:
    return {512, 512, 32};
  case MatmulShape::Square:
    return {256, 512, 512};
  }
  return {0, 0, 0};
}

MatmulChoice::MatmulChoice() {
  // What pipewave-calibrate measured on the AMD Zen 4 build machine
  // (docs/bench.md): the vectorised kernel is faster except where a large
  // operand is a transposed copy at few rows of work (BLAS folds the
  // transpose into its flags; the vectorised kernel copies it). tt is not
  // measured (pipe-autodiff does not produce it): BLAS folds both.
  table.fill(MatmulKernel::Vector);
  set({MatmulLayout::NT, MatmulShape::SkinnyM}, MatmulKernel::Blas);
  set({MatmulLayout::TN, MatmulShape::SkinnyN}, MatmulKernel::Blas);
  for (MatmulShape shape : kShapes)
    set({MatmulLayout::TT, shape}, MatmulKernel::Blas);
}

MatmulKernel MatmulChoice::kernel(MatmulClass cls) const {
  return table[indexOf(cls)];
}

void MatmulChoice::set(MatmulClass cls, MatmulKernel kernel) {
  table[indexOf(cls)] = kernel;
}

bool MatmulChoice::apply(const std::vector<std::string> &rules,
                         std::string &error) {
  for (const std::string &rule : rules) {
    std::string_view text(rule);
    size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) {
      error = "matmul choice rule '" + rule + "': expected CLASS:KERNEL";
      return false;
    }
    std::string_view cls = text.substr(0, colon);
    std::optional<MatmulKernel> kernel =
        parseMatmulKernel(text.substr(colon + 1));
    if (!kernel) {
      error = "matmul choice rule '" + rule +
              "': the kernel must be vector or blas";
      return false;
    }
    // LAYOUT-SHAPE with "*" for either part, or "*" for both.
    std::string_view layoutText = "*", shapeText = "*";
    if (cls != "*") {
      size_t dash = cls.find('-');
      if (dash == std::string_view::npos) {
        error = "matmul choice rule '" + rule +
                "': expected a class LAYOUT-SHAPE or *";
        return false;
      }
      layoutText = cls.substr(0, dash);
      shapeText = cls.substr(dash + 1);
    }
    std::optional<MatmulLayout> layout = parseLayout(layoutText);
    std::optional<MatmulShape> shape = parseShape(shapeText);
    if ((layoutText != "*" && !layout) || (shapeText != "*" && !shape)) {
      error = "matmul choice rule '" + rule +
              "': unknown class (layouts nn, tn, nt, tt or *; shapes small, "
              "skinny-m, skinny-n, skinny-k, square or *)";
      return false;
    }
    for (MatmulLayout l : kLayouts)
      for (MatmulShape s : kShapes)
        if ((!layout || *layout == l) && (!shape || *shape == s))
          set({l, s}, *kernel);
  }
  return true;
}

std::vector<std::string> MatmulChoice::rules() const {
  std::vector<std::string> out;
  for (MatmulLayout l : kLayouts)
    for (MatmulShape s : kShapes)
      out.push_back(matmulClassName({l, s}) + ":" + stringify(kernel({l, s})));
  return out;
}

int MatmulChoice::count(MatmulKernel kernel) const {
  return static_cast<int>(std::count(table.begin(), table.end(), kernel));
}

} // namespace pipewave
