//===- MatmulKernels.h - Timing both CPU matmul kernels per class -*- C++
//-*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The calibration's "matmulKernels": one model per matmul class of layout
// nn, tn and nt (pipewave/Conversion/MatmulChoice.h; tt, which the backward
// does not produce, keeps the built-in default) at the class's
// representative shape, compiled with --matmul=vector and --matmul=blas and
// timed alternately (vector, blas, vector, blas: each kernel's best median
// counts), so that load that comes and goes hits both. The tn layout's
// small class is timed at a weight gradient's shape too (128x128x4), one
// row each, and its kernel is the one whose worst slowdown over both is the
// smaller (KernelChoice.h).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_TOOLS_CALIBRATE_MATMULKERNELS_H
#define PIPEWAVE_TOOLS_CALIBRATE_MATMULKERNELS_H

#include "Measure.h"

#include "pipewave/Simulator/Calibration.h"

#include <optional>
#include <string>
#include <vector>

namespace pipewave::calibrate {

/// Times both kernels for every measured class, `rounds` times each (the
/// calibration's passes), which kernel goes first alternating from round
/// to round, and keeps each one's fastest (`quick`: small shapes only);
/// nullopt with `error` set when a command fails.
std::optional<std::vector<sim::MatmulKernelPoint>>
measureMatmulKernels(Runner &runner, bool quick, int rounds,
                     std::string &error);

/// The --matmul-choice value of `points` (one rule per class, in order).
std::string matmulChoiceFlag(const std::vector<sim::MatmulKernelPoint> &points);

} // namespace pipewave::calibrate

#endif // PIPEWAVE_TOOLS_CALIBRATE_MATMULKERNELS_H
