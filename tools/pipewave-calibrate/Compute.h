//===- Compute.h - One pass over the compute benchmarks ---------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Everything pipewave-calibrate measures on one rank after the matmul
// kernel choice: fixed costs per action and op, element-wise, reduction,
// transpose and matmul rates, the runtime's accumulation and copies, cold
// parameters and the Adam step. pipewave-calibrate runs it once per pass;
// every figure of a pass is computed from the medians over the passes so
// far (Runner::pooled, SamplePool), so the last pass's figures are the
// medians over all of them.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_TOOLS_CALIBRATE_COMPUTE_H
#define PIPEWAVE_TOOLS_CALIBRATE_COMPUTE_H

#include "Measure.h"

#include "pipewave/Simulator/Calibration.h"

#include <functional>

namespace pipewave::calibrate {

/// Prints one figure: what, value, unit.
using Report = std::function<void(const char *, double, const char *)>;

/// Fills `c`'s compute figures (its tables must be empty; matmulKernels
/// and cores are left as they are). Dies with the command's output when a
/// benchmark fails.
void measureCompute(Runner &runner, SamplePool &loops, bool quick,
                    sim::Calibration &c, const Report &report);

} // namespace pipewave::calibrate

#endif // PIPEWAVE_TOOLS_CALIBRATE_COMPUTE_H
