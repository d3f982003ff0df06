//===- Drift.cpp - A machine now against its calibration ------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "Drift.h"
#include "Samples.h"

#include <cstdio>

namespace pipewave::calibrate {

namespace {

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

/// One term per point of `now`'s table `name` against the same table of
/// `calibrated` at the point's bytes.
void bandwidthTerms(const char *name,
                    const std::vector<sim::BandwidthPoint> &now,
                    const std::vector<sim::BandwidthPoint> &calibrated,
                    std::vector<DriftTerm> &terms) {
  if (calibrated.empty())
    return;
  for (const sim::BandwidthPoint &point : now) {
    double predicted = sim::bandwidthAt(calibrated, point.bytes);
    if (point.bytesPerSecond > 0 && predicted > 0)
      terms.push_back({std::string(name) + " " + number(point.bytes) + " B",
                       predicted / point.bytesPerSecond});
  }
}

} // namespace

std::vector<DriftTerm> driftAgainst(const sim::Calibration &now,
                                    const sim::Calibration &calibrated) {
  std::vector<DriftTerm> terms;
  if (!calibrated.matmul.empty())
    for (const sim::MatmulPoint &point : now.matmul) {
      double predicted =
          calibrated.matmulFlopsPerSecond(point.m, point.n, point.k);
      if (point.flopsPerSecond > 0 && predicted > 0)
        terms.push_back({"matmul M=" + number(point.m) +
                             " N=" + number(point.n) + " K=" + number(point.k),
                         predicted / point.flopsPerSecond});
    }
  bandwidthTerms("element-wise", now.elementwise, calibrated.elementwise,
                 terms);
  bandwidthTerms("reduction", now.reduction, calibrated.reduction, terms);
  bandwidthTerms("outer reduction", now.outerReduction,
                 calibrated.outerReduction, terms);
  bandwidthTerms("movement", now.movement, calibrated.movement, terms);
  bandwidthTerms("copy", now.copy, calibrated.copy, terms);
  bandwidthTerms("accumulate", now.accumulate, calibrated.accumulate, terms);
  bandwidthTerms("Adam step", now.optimizer, calibrated.optimizer, terms);
  if (!calibrated.transpose.empty())
    for (const sim::TransposePoint &point : now.transpose) {
      double predicted =
          calibrated.transposeBytesPerSecond(point.rows, point.cols);
      if (point.bytesPerSecond > 0 && predicted > 0)
        terms.push_back(
            {"transpose " + number(point.rows) + "x" + number(point.cols),
             predicted / point.bytesPerSecond});
    }
  return terms;
}

double medianDrift(const std::vector<DriftTerm> &terms) {
  if (terms.empty())
    return 1;
  std::vector<double> ratios;
  for (const DriftTerm &term : terms)
    ratios.push_back(term.ratio);
  return median(std::move(ratios));
}

} // namespace pipewave::calibrate
