//===- KernelChoice.cpp - The matmul kernel of a class from its timings ---===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "KernelChoice.h"

#include <algorithm>

namespace pipewave::calibrate {

std::string
chooseKernel(const std::vector<sim::MatmulKernelPoint> &classPoints) {
  double vectorWorst = 1, blasWorst = 1;
  for (const sim::MatmulKernelPoint &point : classPoints) {
    double best = std::min(point.vectorSeconds, point.blasSeconds);
    if (!(best > 0))
      continue;
    vectorWorst = std::max(vectorWorst, point.vectorSeconds / best);
    blasWorst = std::max(blasWorst, point.blasSeconds / best);
  }
  return vectorWorst < blasWorst ? "vector" : "blas";
}

} // namespace pipewave::calibrate
