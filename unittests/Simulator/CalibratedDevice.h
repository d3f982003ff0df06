//===- CalibratedDevice.h - A calibrated test device and its helpers -*- C++
//-*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The calibrated device with round figures that the cost-term tests price
// hand-computed cases on, with helpers to add terms, build op work and
// check that a device writes back as itself.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_UNITTESTS_SIMULATOR_CALIBRATEDDEVICE_H
#define PIPEWAVE_UNITTESTS_SIMULATOR_CALIBRATEDDEVICE_H

#include "pipewave/Simulator/Device.h"

#include "gtest/gtest.h"

#include <optional>
#include <string>

namespace pipewave::sim::test {

/// A calibrated device with round figures, as pipewave-calibrate writes it.
inline const char *const kCalibrated = R"({
  "name": "fixed",
  "description": "a calibrated test device",
  "source": "hand-written",
  "peakFlopsPerSecond": { "fp32": 1e11, "tf32": 0, "fp16": 0 },
  "memoryBytesPerSecond": 1e10,
  "memoryBytes": 1e9,
  "intraNode": { "bytesPerSecond": 1e9, "latencySeconds": 1e-6 },
  "interNode": { "bytesPerSecond": 1e8, "latencySeconds": 1e-5 },
  "calibration": {
    "cores": 2,
    "elementwise": [{ "bytes": 1e6, "bytesPerSecond": 1e9 }],
    "reduction": [{ "bytes": 1e6, "bytesPerSecond": 2e9 }],
    "movement": [{ "bytes": 1e3, "bytesPerSecond": 16e9 },
                 { "bytes": 1e5, "bytesPerSecond": 4e9 }],
    "elementwiseFlopsPerSecond": 1e9,
    "opSeconds": 1e-6,
    "actionSeconds": 2e-6,
    "optimizerSeconds": 1e-5,
    "optimizer": [{ "bytes": 1e6, "bytesPerSecond": 1e9 }],
    "allReduce": { "bytesPerSecond": 5e8, "latencySeconds": 3e-6 },
    "matmul": [
      { "m": 16, "n": 64, "k": 64, "flopsPerSecond": 1e10 },
      { "m": 64, "n": 64, "k": 64, "flopsPerSecond": 4e10 }
    ]
  }
})";

inline DeviceSpec calibrated() {
  std::string error;
  std::optional<DeviceSpec> device = parseDeviceJson(kCalibrated, &error);
  EXPECT_TRUE(device) << error;
  return device ? *device : DeviceSpec();
}

inline OpWork op(OpClass kind, double flops, double bytes) {
  OpWork work;
  work.kind = kind;
  work.flops = flops;
  work.bytes = bytes;
  return work;
}

/// A matmul of `batch` products [m, k] x [k, n].
inline OpWork matmul(double m, double n, double k, double batch = 1) {
  OpWork work = op(OpClass::Matmul, batch * 2 * m * n * k,
                   batch * 4 * (m * k + k * n + m * n));
  work.m = m;
  work.n = n;
  work.k = k;
  return work;
}

/// kCalibrated with `terms` (JSON members, each with its trailing comma)
/// added to its calibration.
inline std::string calibratedWith(const std::string &terms) {
  std::string text = kCalibrated;
  text.replace(text.find("\"cores\": 2,"), 11, "\"cores\": 2,\n    " + terms);
  return text;
}

/// `device` written as JSON reads back as the same device.
inline void expectRoundTrip(const DeviceSpec &device) {
  std::string error;
  std::optional<DeviceSpec> again = parseDeviceJson(toJson(device), &error);
  ASSERT_TRUE(again) << error;
  EXPECT_EQ(toJson(*again), toJson(device));
}

} // namespace pipewave::sim::test

#endif // PIPEWAVE_UNITTESTS_SIMULATOR_CALIBRATEDDEVICE_H
