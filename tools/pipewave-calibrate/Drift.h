//===- Drift.h - A machine now against its calibration ----------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// pipewave-calibrate --check DEVICE measures one pass of the compute
// benchmarks and compares every figure with what DEVICE's calibration
// predicts for the same shape or size: the matmul rate it interpolates,
// the bandwidth of the same table at the same bytes. Each ratio is a time
// ratio (above 1: the machine is slower now than when it was calibrated);
// their median says by how much the cost model's predictions on DEVICE are
// off on this machine now (another process or virtual machine on its
// cores, a different clock, a different machine under the same name).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_TOOLS_CALIBRATE_DRIFT_H
#define PIPEWAVE_TOOLS_CALIBRATE_DRIFT_H

#include "pipewave/Simulator/Calibration.h"

#include <string>
#include <vector>

namespace pipewave::calibrate {

/// One figure measured now against the calibration's prediction of it.
struct DriftTerm {
  std::string name;
  /// The time it takes now over the time the calibration predicts.
  double ratio = 0;
};

/// Every rate `now` measured (matmul points, the element-wise, reduction,
/// outer reduction, movement, copy, accumulation, Adam and transpose
/// tables) against `calibrated`'s rate at the same shape or size, where
/// both have the table; terms with a zero rate on either side are left
/// out. Fixed per-call costs (a fraction of a microsecond, dominated by
/// noise) are not compared.
std::vector<DriftTerm> driftAgainst(const sim::Calibration &now,
                                    const sim::Calibration &calibrated);

/// The median of the terms' ratios (1 for none).
double medianDrift(const std::vector<DriftTerm> &terms);

} // namespace pipewave::calibrate

#endif // PIPEWAVE_TOOLS_CALIBRATE_DRIFT_H
