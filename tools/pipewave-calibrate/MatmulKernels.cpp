//===- MatmulKernels.cpp - Timing both CPU matmul kernels per class -------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "MatmulKernels.h"
#include "KernelChoice.h"

#include "pipewave/Conversion/MatmulChoice.h"

#include <algorithm>
#include <array>

namespace pipewave::calibrate {

/// The shapes a class is timed at: its representative, and for the tn
/// layout's small class also a weight gradient's, M = N features over the
/// K = 4 rows of a small microbatch (the vectorised kernel, which reads the
/// transposed activation with a stride, ran it 3x slower than OpenBLAS
/// while it won at the representative 8x128x128 by 8%).
static std::vector<std::array<int64_t, 3>> classShapes(MatmulLayout layout,
                                                       MatmulShape shape) {
  std::vector<std::array<int64_t, 3>> shapes = {representativeShape(shape)};
  if (layout == MatmulLayout::TN && shape == MatmulShape::Small)
    shapes.push_back({128, 128, 4});
  return shapes;
}

std::optional<std::vector<sim::MatmulKernelPoint>>
measureMatmulKernels(Runner &runner, bool quick, int rounds,
                     std::string &error) {
  std::vector<MatmulShape> shapes = {MatmulShape::Small};
  if (!quick)
    shapes.insert(shapes.end(), {MatmulShape::SkinnyM, MatmulShape::SkinnyN,
                                 MatmulShape::SkinnyK, MatmulShape::Square});
  std::vector<sim::MatmulKernelPoint> points;
  for (MatmulLayout layout :
       {MatmulLayout::NN, MatmulLayout::TN, MatmulLayout::NT})
    for (MatmulShape shape : shapes) {
      std::string cls = matmulClassName({layout, shape});
      std::vector<sim::MatmulKernelPoint> timed;
      for (std::array<int64_t, 3> mnk : classShapes(layout, shape)) {
        Model model =
            layoutMatmul(mnk[0], mnk[1], mnk[2], layout == MatmulLayout::TN,
                         layout == MatmulLayout::NT);
        sim::MatmulKernelPoint point;
        point.matmulClass = cls;
        point.m = static_cast<double>(mnk[0]);
        point.n = static_cast<double>(mnk[1]);
        point.k = static_cast<double>(mnk[2]);
        point.vectorSeconds = point.blasSeconds = 0;
        // The representative keeps its label; a further shape names its
        // size.
        std::string label = "kernel-" + cls;
        if (!timed.empty())
          label += "-" + std::to_string(mnk[0]) + "x" + std::to_string(mnk[2]) +
                   "x" + std::to_string(mnk[1]);
        // A busy moment of a shared machine then falls on one kernel in
        // one round only (once, both rounds timing OpenBLAS's path in such
        // moments gave tn-square to the slower kernel: docs/bench.md).
        for (int round = 0; round < std::max(rounds, 1); ++round)
          for (MatmulKernel kernel :
               round % 2 == 0
                   ? std::array<MatmulKernel, 2>{MatmulKernel::Vector,
                                                 MatmulKernel::Blas}
                   : std::array<MatmulKernel, 2>{MatmulKernel::Blas,
                                                 MatmulKernel::Vector}) {
            model.compileFlags = std::string(" --matmul=") + stringify(kernel);
            std::optional<Timing> timing =
                runner.time(model, label + "-" + stringify(kernel), error);
            if (!timing)
              return std::nullopt;
            double &best = kernel == MatmulKernel::Vector ? point.vectorSeconds
                                                          : point.blasSeconds;
            best =
                round == 0 ? timing->forward : std::min(best, timing->forward);
          }
        timed.push_back(point);
      }
      // One kernel for the class, every shape's row carrying it (the first
      // row, the representative, prices the class's layout ratio).
      std::string kernel = chooseKernel(timed);
      for (sim::MatmulKernelPoint &point : timed) {
        point.kernel = kernel;
        points.push_back(point);
      }
    }
  return points;
}

std::string
matmulChoiceFlag(const std::vector<sim::MatmulKernelPoint> &points) {
  std::string rules;
  for (const sim::MatmulKernelPoint &point : points)
    rules +=
        (rules.empty() ? "" : ",") + point.matmulClass + ":" + point.kernel;
  return rules;
}

} // namespace pipewave::calibrate
