//===- CalibrationJson.h - The optional terms of a calibration --*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Reading and writing the calibration terms that files written before they
// existed lack (Calibration.h: version, fusedOpSeconds,
// transcendentalFlopsPerSecond, outerReduction, transpose, copy, accumulate,
// accumulateSeconds). Device.cpp
// reads and writes the rest of the object.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_SIMULATOR_CALIBRATIONJSON_H
#define PIPEWAVE_LIB_SIMULATOR_CALIBRATIONJSON_H

#include "pipewave/Simulator/Calibration.h"
#include "pipewave/Support/Json.h"

#include <string>

namespace pipewave::sim {

/// Reads the optional terms of the calibration object `object` into `out`;
/// false with `error` set when one is present but malformed.
bool readOptionalCalibration(const json::JsonValue &object, Calibration &out,
                             std::string &error);

/// The optional terms of `c` as JSON members, each line indented by four
/// spaces and ending in ",\n" (empty tables and zero terms are left out).
std::string optionalCalibrationJson(const Calibration &c);

/// Reads the optional "matmulKernels" array (MatmulKernelsJson.cpp); false
/// with `error` set when it is malformed.
bool readMatmulKernels(const json::JsonValue &object, Calibration &out,
                       std::string &error);

/// "matmulKernels" as a JSON member like optionalCalibrationJson's ("" when
/// empty).
std::string matmulKernelsJson(const Calibration &c);

/// The entries of a matmul rate table ("matmul", "matmulNT", "matmulTN"),
/// each on a line of its own after a newline, separated by commas.
std::string matmulPointsJson(const std::vector<MatmulPoint> &points);

} // namespace pipewave::sim

#endif // PIPEWAVE_LIB_SIMULATOR_CALIBRATIONJSON_H
