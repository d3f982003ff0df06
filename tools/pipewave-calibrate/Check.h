//===- Check.h - pipewave-calibrate --check ---------------------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// One pass of the compute benchmarks, compared with what a calibrated
// device predicts for them (Drift.h): whether the machine still runs at
// the speed its calibration measured. Writes no device file.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_TOOLS_CALIBRATE_CHECK_H
#define PIPEWAVE_TOOLS_CALIBRATE_CHECK_H

#include "Measure.h"

#include <string>

namespace pipewave::calibrate {

/// Measures one pass with `runner` (the calibration's shapes, or with
/// `quick` the --quick ones, which the calibration may only interpolate:
/// a smoke test), compares it with
/// the calibration of `device` (a name or a device file, as --device takes
/// it) and prints every term and their median to stderr. Returns the exit
/// code: 0 when it measured, 1 when the device cannot be read, has no
/// calibration or a benchmark fails.
int checkAgainst(Runner &runner, const std::string &device, bool quick);

} // namespace pipewave::calibrate

#endif // PIPEWAVE_TOOLS_CALIBRATE_CHECK_H
