//===- KernelChoice.h - The matmul kernel of a class from its timings -*- C++
//-*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// A matmul class can be timed at more than one shape (MatmulKernels.cpp:
// the tn layout's small class also at a weight gradient's shape). Its
// kernel is then the one whose worst slowdown against the faster kernel,
// over those shapes, is the smaller: a near tie at one shape (1.72 against
// 1.87 us at 8x128x128) does not pick a kernel 3x slower at another
// (128x128x4).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_TOOLS_CALIBRATE_KERNELCHOICE_H
#define PIPEWAVE_TOOLS_CALIBRATE_KERNELCHOICE_H

#include "pipewave/Simulator/Calibration.h"

#include <string>
#include <vector>

namespace pipewave::calibrate {

/// "vector" or "blas" for the timings of one class at its shapes (each
/// point's vectorSeconds and blasSeconds): the kernel with the smaller
/// largest ratio of its time to the faster kernel's; blas on a tie.
std::string
chooseKernel(const std::vector<sim::MatmulKernelPoint> &classPoints);

} // namespace pipewave::calibrate

#endif // PIPEWAVE_TOOLS_CALIBRATE_KERNELCHOICE_H
