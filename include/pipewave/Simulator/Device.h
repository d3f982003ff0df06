//===- Device.h - Device and cluster descriptions ---------------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Plain C++ (no MLIR/LLVM). A DeviceSpec holds the public figures of one
// accelerator (or CPU socket) and of the links of a typical system built from
// it; a Cluster is devicesPerNode x nodes such devices.
//
// The built-in table (builtinDevices()) and the files data/devices/*.json
// hold the same figures; each file cites its sources, and a unit test keeps
// the two in sync. Units are SI: bytes, seconds, FLOP/s, bytes/s.
//
// Link conventions
// ----------------
// * intraNode: one device's point-to-point bandwidth to the other devices of
//   its node, per direction (NVLink: the datasheet's bidirectional total / 2),
//   and the latency of one message.
// * interNode: the network bandwidth of one node, per direction, summed over
//   its NICs, and the latency of one message between nodes.
//
// Precision
// ---------
// seconds() is a roofline over the peak matmul rate of one precision. FP32 is
// the default (pipewave's TOSA models are f32); TF32 and FP16 use the tensor
// core rates and fall back to FP32 on devices without them (rate 0). The
// DAPPLE planner does not use FLOP rates: its profiles are measured times.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_SIMULATOR_DEVICE_H
#define PIPEWAVE_SIMULATOR_DEVICE_H

#include "pipewave/Simulator/Calibration.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipewave::sim {

/// A point-to-point link.
struct LinkSpec {
  /// Bandwidth per direction.
  double bytesPerSecond = 0;
  /// Latency of one message (added once per message, not per byte).
  double latencySeconds = 0;
};

/// Numeric format of the matmuls a roofline estimate assumes.
enum class Precision { FP32, TF32, FP16 };

/// "fp32", "tf32" or "fp16".
const char *stringify(Precision precision);

/// Parses "fp32", "tf32" or "fp16".
std::optional<Precision> parsePrecision(std::string_view text);

/// Public figures of one device type and of the links of a typical system.
struct DeviceSpec {
  /// Short name used on command lines: "cpu", "v100", "a100", "h100", "h200".
  std::string name;
  /// Full product name and variant, e.g. "NVIDIA Tesla V100 SXM2 16 GB".
  std::string description;
  /// Where the figures come from (datasheet names).
  std::string source;
  /// Peak dense matmul rates; 0 where the device has no faster path than
  /// FP32 for that format.
  double fp32FlopsPerSecond = 0;
  double tf32FlopsPerSecond = 0;
  double fp16FlopsPerSecond = 0;
  /// Device memory bandwidth and capacity.
  double memoryBytesPerSecond = 0;
  double memoryBytes = 0;
  LinkSpec intraNode;
  LinkSpec interNode;
  /// Terms measured on one machine by pipewave-calibrate (Calibration.h);
  /// absent in the shipped files.
  std::optional<Calibration> calibration;

  /// Whether the device is a CPU that pipewave-run's host device drives: one
  /// named "cpu", or one calibrated on a CPU (not issueOverlapsWork).
  bool isCpu() const;

  /// The peak rate for `precision` (FP32's if the device has none for it).
  double peakFlopsPerSecond(Precision precision = Precision::FP32) const;

  /// Roofline time of work doing `flops` operations and moving `bytes`
  /// bytes: max(flops / peak, bytes / memory bandwidth).
  double seconds(double flops, double bytes,
                 Precision precision = Precision::FP32) const;

  /// Seconds of one op: the calibrated cost when the device has a
  /// calibration, else the FP32 roofline of its flops and bytes.
  double opSeconds(const OpWork &op) const;
};

/// The built-in devices: cpu, v100, a100, h100, h200 (same figures as
/// data/devices/<name>.json).
const std::vector<DeviceSpec> &builtinDevices();

/// The built-in device called `name` (case-insensitive), if any.
std::optional<DeviceSpec> findDevice(std::string_view name);

/// Where calibrated devices are cached: $PIPEWAVE_CACHE_DIR, else
/// $XDG_CACHE_HOME/pipewave, else $HOME/.cache/pipewave, followed by
/// "/devices"; empty when none of the variables is set.
std::string calibratedDeviceDir();

/// The cached device file of the calibration called `name`
/// (calibratedDeviceDir()/NAME.json), or "" when there is no cache dir.
std::string calibratedDevicePath(std::string_view name);

/// A device by name: a built-in one, a device file (a name ending in
/// ".json"), or a calibration cached under that name
/// (calibratedDevicePath()); nullopt with `error` set otherwise.
std::optional<DeviceSpec> lookupDevice(std::string_view name,
                                       std::string &error);

/// The name pipewave-calibrate gives the machine it runs on by default.
inline constexpr const char *kHostDeviceName = "host";

/// Parses a device description in the format of data/devices/*.json. On
/// failure returns nullopt and sets `error`.
std::optional<DeviceSpec> parseDeviceJson(std::string_view text,
                                          std::string *error = nullptr);

/// Reads and parses a device description file.
std::optional<DeviceSpec> loadDeviceFile(const std::string &path,
                                         std::string *error = nullptr);

/// `device` in the format of data/devices/*.json.
std::string toJson(const DeviceSpec &device);

/// devicesPerNode x nodes devices. Device d is on node d / devicesPerNode.
struct Cluster {
  DeviceSpec device;
  int devicesPerNode = 1;
  int nodes = 1;
  /// Links and memory per device; start out as the device's figures and may
  /// be overridden (e.g. a V100 cluster on 25 Gb/s Ethernet).
  LinkSpec intraNode;
  LinkSpec interNode;
  double memoryBytes = 0;

  /// A cluster of `device`s with the device's links and memory.
  static Cluster of(const DeviceSpec &device, int devicesPerNode, int nodes);

  /// `numDevices` devices on one node with free communication (infinite
  /// bandwidth, zero latency) and unlimited memory: the unit-cost world.
  static Cluster ideal(int numDevices);

  int numDevices() const { return devicesPerNode * nodes; }
  int nodeOf(int device) const { return device / devicesPerNode; }
};

/// Parses a byte count: a number with an optional unit B, KB, MB, GB, TB
/// (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024), e.g. "16GiB",
/// "1.5e9", "900 MB".
std::optional<double> parseBytes(std::string_view text);

/// Parses a bandwidth in bytes per second: a number with a unit B/s, KB/s,
/// MB/s, GB/s, TB/s (bytes) or b/s, Kb/s, Mb/s, Gb/s, Tb/s (bits), or
/// "Gbps"-style; a bare number is bytes per second. E.g. "100Gb/s" is 12.5e9.
std::optional<double> parseBandwidth(std::string_view text);

/// Human-readable "12.4 GiB", "512 MiB", "300 B".
std::string formatBytes(double bytes);

/// Human-readable "1.25 s", "340.2 ms", "12.0 us".
std::string formatSeconds(double seconds);

} // namespace pipewave::sim

#endif // PIPEWAVE_SIMULATOR_DEVICE_H
