//===- Calibration.cpp - Measured cost terms of one machine ---------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Simulator/Calibration.h"

#include <algorithm>
#include <cmath>

namespace pipewave::sim {

namespace {

/// bytes / rate, or 0 when the rate is not known.
double over(double amount, double rate) { return rate > 0 ? amount / rate : 0; }

} // namespace

double bandwidthAt(const std::vector<BandwidthPoint> &table, double bytes) {
  if (table.empty())
    return 0;
  if (bytes <= table.front().bytes)
    return table.front().bytesPerSecond;
  for (size_t i = 1; i < table.size(); ++i) {
    const BandwidthPoint &lo = table[i - 1], &hi = table[i];
    if (bytes > hi.bytes)
      continue;
    if (!(lo.bytesPerSecond > 0 && hi.bytesPerSecond > 0 &&
          hi.bytes > lo.bytes))
      return hi.bytesPerSecond;
    double f = std::log(bytes / lo.bytes) / std::log(hi.bytes / lo.bytes);
    return std::exp((1 - f) * std::log(lo.bytesPerSecond) +
                    f * std::log(hi.bytesPerSecond));
  }
  return table.back().bytesPerSecond;
}

double Calibration::matmulFlopsPerSecond(double m, double n, double k) const {
  double weightSum = 0, logSum = 0;
  for (const MatmulPoint &point : matmul) {
    if (!(point.flopsPerSecond > 0))
      continue;
    double dm = std::log2(std::max(m, 1.0)) - std::log2(std::max(point.m, 1.0));
    double dn = std::log2(std::max(n, 1.0)) - std::log2(std::max(point.n, 1.0));
    double dk = std::log2(std::max(k, 1.0)) - std::log2(std::max(point.k, 1.0));
    double squared = dm * dm + dn * dn + dk * dk;
    if (squared == 0)
      return point.flopsPerSecond;
    double weight = 1 / (squared * squared);
    weightSum += weight;
    logSum += weight * std::log(point.flopsPerSecond);
  }
  return weightSum > 0 ? std::exp(logSum / weightSum) : 0;
}

double Calibration::opSecondsOf(const OpWork &op, double peakFlops,
                                double memoryBytesPerSecond) const {
  switch (op.kind) {
  case OpClass::Free:
    return 0;
  case OpClass::Matmul: {
    double rate = matmulFlopsPerSecond(op.m, op.n, op.k);
    return opSeconds + over(op.flops, rate > 0 ? rate : peakFlops);
  }
  case OpClass::Elementwise:
    return opSeconds +
           std::max(over(op.bytes, bandwidthAt(elementwise, op.bytes)),
                    over(op.flops, elementwiseFlopsPerSecond));
  case OpClass::Reduction:
    return opSeconds + over(op.bytes, bandwidthAt(reduction, op.bytes));
  case OpClass::Movement:
    return opSeconds + over(op.bytes, bandwidthAt(movement, op.bytes));
  case OpClass::Other:
    break;
  }
  return opSeconds + std::max(over(op.flops, peakFlops),
                              over(op.bytes, memoryBytesPerSecond));
}

double Calibration::optimizerStepSeconds(double parameterBytes) const {
  return optimizerSeconds +
         over(parameterBytes, bandwidthAt(optimizer, parameterBytes));
}

} // namespace pipewave::sim
