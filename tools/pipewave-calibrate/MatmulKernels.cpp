//===- MatmulKernels.cpp - Timing both CPU matmul kernels per class -------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "MatmulKernels.h"

#include "pipewave/Conversion/MatmulChoice.h"

#include <algorithm>
#include <array>

namespace pipewave::calibrate {

std::optional<std::vector<sim::MatmulKernelPoint>>
measureMatmulKernels(Runner &runner, bool quick, std::string &error) {
  std::vector<MatmulShape> shapes = {MatmulShape::Small};
  if (!quick)
    shapes.insert(shapes.end(), {MatmulShape::SkinnyM, MatmulShape::SkinnyN,
                                 MatmulShape::SkinnyK, MatmulShape::Square});
  int rounds = quick ? 1 : 2;
  std::vector<sim::MatmulKernelPoint> points;
  for (MatmulLayout layout :
       {MatmulLayout::NN, MatmulLayout::TN, MatmulLayout::NT})
    for (MatmulShape shape : shapes) {
      std::array<int64_t, 3> mnk = representativeShape(shape);
      std::string cls = matmulClassName({layout, shape});
      Model model =
          layoutMatmul(mnk[0], mnk[1], mnk[2], layout == MatmulLayout::TN,
                       layout == MatmulLayout::NT);
      sim::MatmulKernelPoint point;
      point.matmulClass = cls;
      point.m = static_cast<double>(mnk[0]);
      point.n = static_cast<double>(mnk[1]);
      point.k = static_cast<double>(mnk[2]);
      point.vectorSeconds = point.blasSeconds = 0;
      for (int round = 0; round < rounds; ++round)
        for (MatmulKernel kernel : {MatmulKernel::Vector, MatmulKernel::Blas}) {
          model.compileFlags = std::string(" --matmul=") + stringify(kernel);
          std::optional<Timing> timing = runner.time(
              model, "kernel-" + cls + "-" + stringify(kernel), error);
          if (!timing)
            return std::nullopt;
          double &best = kernel == MatmulKernel::Vector ? point.vectorSeconds
                                                        : point.blasSeconds;
          best = round == 0 ? timing->forward : std::min(best, timing->forward);
        }
      point.kernel = point.vectorSeconds < point.blasSeconds
                         ? stringify(MatmulKernel::Vector)
                         : stringify(MatmulKernel::Blas);
      points.push_back(point);
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
