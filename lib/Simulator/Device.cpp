//===- Device.cpp - Device and cluster descriptions -----------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Simulator/Device.h"

#include "CalibrationJson.h"

#include "pipewave/Support/Json.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

namespace pipewave::sim {

using json::jsonNumber;
using json::jsonQuote;
using json::JsonValue;
using json::parseJson;

const char *stringify(Precision precision) {
  switch (precision) {
  case Precision::FP32:
    return "fp32";
  case Precision::TF32:
    return "tf32";
  case Precision::FP16:
    return "fp16";
  }
  return "?";
}

std::optional<Precision> parsePrecision(std::string_view text) {
  for (Precision p : {Precision::FP32, Precision::TF32, Precision::FP16})
    if (text == stringify(p))
      return p;
  return std::nullopt;
}

bool DeviceSpec::isCpu() const {
  return calibration ? !calibration->issueOverlapsWork : name == "cpu";
}

double DeviceSpec::peakFlopsPerSecond(Precision precision) const {
  double rate = 0;
  switch (precision) {
  case Precision::FP32:
    rate = fp32FlopsPerSecond;
    break;
  case Precision::TF32:
    rate = tf32FlopsPerSecond;
    break;
  case Precision::FP16:
    rate = fp16FlopsPerSecond;
    break;
  }
  return rate > 0 ? rate : fp32FlopsPerSecond;
}

double DeviceSpec::seconds(double flops, double bytes,
                           Precision precision) const {
  double rate = peakFlopsPerSecond(precision);
  double compute = rate > 0 ? flops / rate : 0;
  double memory = memoryBytesPerSecond > 0 ? bytes / memoryBytesPerSecond : 0;
  return std::max(compute, memory);
}

double DeviceSpec::opSeconds(const OpWork &op) const {
  if (calibration)
    return calibration->opSecondsOf(op, fp32FlopsPerSecond,
                                    memoryBytesPerSecond);
  return seconds(op.flops, op.bytes);
}

namespace {

DeviceSpec makeDevice(const char *name, const char *description,
                      const char *source, double fp32, double tf32, double fp16,
                      double memoryBandwidth, double memory, LinkSpec intra,
                      LinkSpec inter) {
  DeviceSpec device;
  device.name = name;
  device.description = description;
  device.source = source;
  device.fp32FlopsPerSecond = fp32;
  device.tf32FlopsPerSecond = tf32;
  device.fp16FlopsPerSecond = fp16;
  device.memoryBytesPerSecond = memoryBandwidth;
  device.memoryBytes = memory;
  device.intraNode = intra;
  device.interNode = inter;
  return device;
}

std::vector<DeviceSpec> makeBuiltinDevices() {
  // Keep in sync with data/devices/*.json (checked by DeviceTest), which
  // carry the full citations.
  return {
      makeDevice("cpu",
                 "Generic single-socket x86-64 server CPU: 32 cores at 2.5 "
                 "GHz with AVX-512 (two FMA units), 8 channels of DDR4-3200, "
                 "256 GiB",
                 "Not a datasheet and not measured: cores x clock x 64 FP32 "
                 "FLOP/cycle; 8 x 25.6 GB/s DDR4-3200; MPI shared memory "
                 "within a node; 25 Gb/s Ethernet between nodes",
                 5.12e12, 0, 0, 204.8e9, 274877906944.0, {20e9, 1e-6},
                 {3.125e9, 25e-6}),
      makeDevice("v100", "NVIDIA Tesla V100 SXM2 16 GB",
                 "NVIDIA Tesla V100 GPU Accelerator datasheet (2020); one "
                 "100 Gb/s EDR InfiniBand NIC per node",
                 15.7e12, 0, 125e12, 900e9, 16e9, {150e9, 5e-6},
                 {12.5e9, 10e-6}),
      makeDevice("a100", "NVIDIA A100 SXM4 80 GB",
                 "NVIDIA A100 Tensor Core GPU datasheet (2021); NVIDIA DGX "
                 "A100 datasheet (8 x 200 Gb/s HDR InfiniBand per node)",
                 19.5e12, 156e12, 312e12, 2039e9, 80e9, {300e9, 5e-6},
                 {200e9, 10e-6}),
      makeDevice("h100", "NVIDIA H100 SXM5 80 GB",
                 "NVIDIA H100 Tensor Core GPU datasheet (2023); NVIDIA DGX "
                 "H100 datasheet (8 x 400 Gb/s NDR InfiniBand per node)",
                 67e12, 494.5e12, 989.5e12, 3.35e12, 80e9, {450e9, 5e-6},
                 {400e9, 10e-6}),
      makeDevice("h200", "NVIDIA H200 SXM 141 GB",
                 "NVIDIA H200 Tensor Core GPU datasheet (2024); NVIDIA DGX "
                 "H200 datasheet (8 x 400 Gb/s NDR InfiniBand per node)",
                 67e12, 494.5e12, 989.5e12, 4.8e12, 141e9, {450e9, 5e-6},
                 {400e9, 10e-6}),
  };
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char &c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool readNumber(const JsonValue &object, const char *key, double &out,
                std::string &error) {
  const JsonValue *value = object.find(key);
  if (!value || !value->isNumber() || !(value->number >= 0)) {
    error = std::string("missing or invalid non-negative number '") + key + "'";
    return false;
  }
  out = value->number;
  return true;
}

bool readLink(const JsonValue &object, const char *key, LinkSpec &out,
              std::string &error) {
  const JsonValue *link = object.find(key);
  if (!link || !link->isObject()) {
    error = std::string("missing object '") + key + "'";
    return false;
  }
  if (!readNumber(*link, "bytesPerSecond", out.bytesPerSecond, error) ||
      !readNumber(*link, "latencySeconds", out.latencySeconds, error)) {
    error = std::string(key) + ": " + error;
    return false;
  }
  return true;
}

/// Reads the optional "calibration" object (Calibration.h).
bool readCalibration(const JsonValue &object, Calibration &out,
                     std::string &error) {
  double cores = 0;
  if (!readNumber(object, "cores", cores, error))
    return false;
  out.cores = static_cast<int>(cores);
  for (auto [key, field] :
       {std::pair<const char *, double *>{"elementwiseFlopsPerSecond",
                                          &out.elementwiseFlopsPerSecond},
        {"opSeconds", &out.opSeconds},
        {"actionSeconds", &out.actionSeconds},
        {"optimizerSeconds", &out.optimizerSeconds}})
    if (!readNumber(object, key, *field, error))
      return false;
  if (object.find("allReduce")) {
    LinkSpec link;
    if (!readLink(object, "allReduce", link, error))
      return false;
    out.allReduceBytesPerSecond = link.bytesPerSecond;
    out.allReduceLatencySeconds = link.latencySeconds;
  }
  for (auto [key, field] :
       {std::pair<const char *, std::vector<BandwidthPoint> *>{
            "elementwise", &out.elementwise},
        {"reduction", &out.reduction},
        {"movement", &out.movement},
        {"optimizer", &out.optimizer}}) {
    const JsonValue *sizes = object.find(key);
    if (!sizes || !sizes->isArray()) {
      error = std::string("missing array '") + key + "'";
      return false;
    }
    for (const JsonValue &entry : sizes->array) {
      BandwidthPoint point;
      if (!entry.isObject() ||
          !readNumber(entry, "bytes", point.bytes, error) ||
          !readNumber(entry, "bytesPerSecond", point.bytesPerSecond, error)) {
        error = std::string(key) + ": " +
                (error.empty() ? "an entry is not an object" : error);
        return false;
      }
      if (!field->empty() && !(point.bytes > field->back().bytes)) {
        error = std::string(key) + ": sizes must increase";
        return false;
      }
      field->push_back(point);
    }
  }
  const JsonValue *table = object.find("matmul");
  if (!table || !table->isArray()) {
    error = "missing array 'matmul'";
    return false;
  }
  for (const JsonValue &entry : table->array) {
    MatmulPoint point;
    if (!entry.isObject() || !readNumber(entry, "m", point.m, error) ||
        !readNumber(entry, "n", point.n, error) ||
        !readNumber(entry, "k", point.k, error) ||
        !readNumber(entry, "flopsPerSecond", point.flopsPerSecond, error)) {
      error =
          "matmul: " + (error.empty() ? "an entry is not an object" : error);
      return false;
    }
    out.matmul.push_back(point);
  }
  return readOptionalCalibration(object, out, error);
}

std::optional<DeviceSpec> parseDevice(const JsonValue &root,
                                      std::string &error) {
  if (!root.isObject()) {
    error = "a device description must be a JSON object";
    return std::nullopt;
  }
  DeviceSpec device;
  for (auto [key, field] :
       {std::pair<const char *, std::string *>{"name", &device.name},
        {"description", &device.description},
        {"source", &device.source}}) {
    const JsonValue *value = root.find(key);
    if (!value || !value->isString()) {
      error = std::string("missing string '") + key + "'";
      return std::nullopt;
    }
    *field = value->string;
  }
  const JsonValue *peak = root.find("peakFlopsPerSecond");
  if (!peak || !peak->isObject()) {
    error = "missing object 'peakFlopsPerSecond'";
    return std::nullopt;
  }
  if (!readNumber(*peak, "fp32", device.fp32FlopsPerSecond, error) ||
      !readNumber(*peak, "tf32", device.tf32FlopsPerSecond, error) ||
      !readNumber(*peak, "fp16", device.fp16FlopsPerSecond, error)) {
    error = "peakFlopsPerSecond: " + error;
    return std::nullopt;
  }
  if (!readNumber(root, "memoryBytesPerSecond", device.memoryBytesPerSecond,
                  error) ||
      !readNumber(root, "memoryBytes", device.memoryBytes, error) ||
      !readLink(root, "intraNode", device.intraNode, error) ||
      !readLink(root, "interNode", device.interNode, error))
    return std::nullopt;
  if (const JsonValue *calibration = root.find("calibration")) {
    Calibration terms;
    if (!calibration->isObject() ||
        !readCalibration(*calibration, terms, error)) {
      error = "calibration: " +
              (error.empty() ? std::string("not an object") : error);
      return std::nullopt;
    }
    device.calibration = terms;
  }
  return device;
}

/// Splits "16GiB" / "100 Gb/s" into the number and the unit.
bool splitQuantity(std::string_view text, double &number, std::string &unit) {
  std::string spelling(text);
  const char *begin = spelling.c_str();
  char *end = nullptr;
  number = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(number) || number < 0)
    return false;
  unit.clear();
  for (const char *c = end; *c; ++c)
    if (!std::isspace(static_cast<unsigned char>(*c)))
      unit += *c;
  return true;
}

std::string formatWithUnit(double value, const char *unit) {
  char buffer[64];
  if (value >= 100)
    std::snprintf(buffer, sizeof buffer, "%.0f %s", value, unit);
  else if (value >= 10)
    std::snprintf(buffer, sizeof buffer, "%.1f %s", value, unit);
  else
    std::snprintf(buffer, sizeof buffer, "%.2f %s", value, unit);
  return buffer;
}

} // namespace

const std::vector<DeviceSpec> &builtinDevices() {
  static const std::vector<DeviceSpec> devices = makeBuiltinDevices();
  return devices;
}

std::optional<DeviceSpec> findDevice(std::string_view name) {
  std::string key = lower(name);
  for (const DeviceSpec &device : builtinDevices())
    if (device.name == key)
      return device;
  return std::nullopt;
}

std::string calibratedDeviceDir() {
  auto env = [](const char *name) -> std::string {
    const char *value = std::getenv(name);
    return value && *value ? value : "";
  };
  std::string dir = env("PIPEWAVE_CACHE_DIR");
  if (dir.empty() && !env("XDG_CACHE_HOME").empty())
    dir = env("XDG_CACHE_HOME") + "/pipewave";
  if (dir.empty() && !env("HOME").empty())
    dir = env("HOME") + "/.cache/pipewave";
  return dir.empty() ? dir : dir + "/devices";
}

std::string calibratedDevicePath(std::string_view name) {
  std::string dir = calibratedDeviceDir();
  return dir.empty() ? dir : dir + "/" + std::string(name) + ".json";
}

std::optional<DeviceSpec> lookupDevice(std::string_view name,
                                       std::string &error) {
  if (std::optional<DeviceSpec> device = findDevice(name))
    return device;
  std::string spelling(name);
  std::string loadError;
  if (spelling.size() > 5 && spelling.substr(spelling.size() - 5) == ".json") {
    std::optional<DeviceSpec> device = loadDeviceFile(spelling, &loadError);
    if (!device)
      error = "cannot read device file '" + spelling + "': " + loadError;
    return device;
  }
  // A calibration cached by pipewave-calibrate under its name.
  std::string cached = calibratedDevicePath(name);
  if (!cached.empty() && std::ifstream(cached).good()) {
    std::optional<DeviceSpec> device = loadDeviceFile(cached, &loadError);
    if (!device)
      error = "cannot read calibrated device '" + spelling + "': " + loadError;
    return device;
  }
  error = "unknown device '" + spelling +
          "' (cpu, v100, a100, h100, h200, a calibrated device or a .json "
          "device file)";
  return std::nullopt;
}

std::optional<DeviceSpec> parseDeviceJson(std::string_view text,
                                          std::string *error) {
  std::string message;
  std::optional<JsonValue> root = parseJson(text, &message);
  std::optional<DeviceSpec> device;
  if (root)
    device = parseDevice(*root, message);
  if (!device && error)
    *error = message;
  return device;
}

std::optional<DeviceSpec> loadDeviceFile(const std::string &path,
                                         std::string *error) {
  std::ifstream in(path);
  if (!in) {
    if (error)
      *error = "cannot open '" + path + "'";
    return std::nullopt;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string message;
  std::optional<DeviceSpec> device = parseDeviceJson(buffer.str(), &message);
  if (!device && error)
    *error = path + ": " + message;
  return device;
}

std::string toJson(const DeviceSpec &device) {
  auto link = [](const LinkSpec &spec) {
    return "{ \"bytesPerSecond\": " + jsonNumber(spec.bytesPerSecond) +
           ", \"latencySeconds\": " + jsonNumber(spec.latencySeconds) + " }";
  };
  std::string out = "{\n";
  out += "  \"name\": " + jsonQuote(device.name) + ",\n";
  out += "  \"description\": " + jsonQuote(device.description) + ",\n";
  out += "  \"source\": " + jsonQuote(device.source) + ",\n";
  out += "  \"peakFlopsPerSecond\": { \"fp32\": " +
         jsonNumber(device.fp32FlopsPerSecond) +
         ", \"tf32\": " + jsonNumber(device.tf32FlopsPerSecond) +
         ", \"fp16\": " + jsonNumber(device.fp16FlopsPerSecond) + " },\n";
  out +=
      "  \"memoryBytesPerSecond\": " + jsonNumber(device.memoryBytesPerSecond) +
      ",\n";
  out += "  \"memoryBytes\": " + jsonNumber(device.memoryBytes) + ",\n";
  out += "  \"intraNode\": " + link(device.intraNode) + ",\n";
  out += "  \"interNode\": " + link(device.interNode);
  if (!device.calibration)
    return out + "\n}\n";
  const Calibration &c = *device.calibration;
  out += ",\n  \"calibration\": {\n";
  out += "    \"cores\": " + jsonNumber(c.cores) + ",\n";
  for (auto [key, value] :
       {std::pair<const char *, double>{"elementwiseFlopsPerSecond",
                                        c.elementwiseFlopsPerSecond},
        {"opSeconds", c.opSeconds},
        {"actionSeconds", c.actionSeconds},
        {"optimizerSeconds", c.optimizerSeconds}})
    out += std::string("    \"") + key + "\": " + jsonNumber(value) + ",\n";
  out += "    \"allReduce\": " +
         link({c.allReduceBytesPerSecond, c.allReduceLatencySeconds}) + ",\n";
  out += optionalCalibrationJson(c);
  for (auto [key, table] :
       {std::pair<const char *, const std::vector<BandwidthPoint> *>{
            "elementwise", &c.elementwise},
        {"reduction", &c.reduction},
        {"movement", &c.movement},
        {"optimizer", &c.optimizer}}) {
    out += std::string("    \"") + key + "\": [";
    for (size_t i = 0; i < table->size(); ++i)
      out += std::string(i ? ", " : "") +
             "{ \"bytes\": " + jsonNumber((*table)[i].bytes) +
             ", \"bytesPerSecond\": " + jsonNumber((*table)[i].bytesPerSecond) +
             " }";
    out += "],\n";
  }
  out += "    \"matmul\": [" + matmulPointsJson(c.matmul) +
         (c.matmul.empty() ? "]\n" : "\n    ]\n");
  return out + "  }\n}\n";
}

Cluster Cluster::of(const DeviceSpec &device, int devicesPerNode, int nodes) {
  Cluster cluster;
  cluster.device = device;
  cluster.devicesPerNode = std::max(1, devicesPerNode);
  cluster.nodes = std::max(1, nodes);
  cluster.intraNode = device.intraNode;
  cluster.interNode = device.interNode;
  cluster.memoryBytes = device.memoryBytes;
  return cluster;
}

Cluster Cluster::ideal(int numDevices) {
  const double inf = std::numeric_limits<double>::infinity();
  DeviceSpec device;
  device.name = "ideal";
  device.description = "free communication, unlimited memory";
  device.source = "none";
  device.memoryBytes = inf;
  device.intraNode = {inf, 0};
  device.interNode = {inf, 0};
  return of(device, std::max(1, numDevices), 1);
}

std::optional<double> parseBytes(std::string_view text) {
  double number;
  std::string unit;
  if (!splitQuantity(text, number, unit))
    return std::nullopt;
  std::string u = lower(unit);
  static const std::pair<const char *, double> units[] = {
      {"", 1},
      {"b", 1},
      {"kb", 1e3},
      {"mb", 1e6},
      {"gb", 1e9},
      {"tb", 1e12},
      {"kib", 1024.0},
      {"mib", 1048576.0},
      {"gib", 1073741824.0},
      {"tib", 1099511627776.0}};
  for (auto [name, scale] : units)
    if (u == name)
      return number * scale;
  return std::nullopt;
}

std::optional<double> parseBandwidth(std::string_view text) {
  double number;
  std::string unit;
  if (!splitQuantity(text, number, unit))
    return std::nullopt;
  if (unit.empty())
    return number;
  // Case matters: B is bytes, b is bits.
  std::string u = unit;
  if (u.size() > 2 && u.substr(u.size() - 2) == "/s")
    u = u.substr(0, u.size() - 2);
  else if (u.size() > 2 && lower(u.substr(u.size() - 2)) == "ps")
    u = u.substr(0, u.size() - 2);
  else
    return std::nullopt;
  if (u.empty())
    return std::nullopt;
  char last = u.back();
  if (last != 'B' && last != 'b')
    return std::nullopt;
  double perUnit = last == 'B' ? 1 : 0.125;
  std::string prefix = lower(u.substr(0, u.size() - 1));
  static const std::pair<const char *, double> prefixes[] = {
      {"", 1}, {"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"t", 1e12}};
  for (auto [name, scale] : prefixes)
    if (prefix == name)
      return number * scale * perUnit;
  return std::nullopt;
}

std::string formatBytes(double bytes) {
  if (!std::isfinite(bytes))
    return "unlimited";
  static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  double value = bytes;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.0f B", value);
    return buffer;
  }
  return formatWithUnit(value, units[unit]);
}

std::string formatSeconds(double seconds) {
  if (!std::isfinite(seconds))
    return "inf";
  if (seconds >= 1)
    return formatWithUnit(seconds, "s");
  if (seconds >= 1e-3)
    return formatWithUnit(seconds * 1e3, "ms");
  return formatWithUnit(seconds * 1e6, "us");
}

} // namespace pipewave::sim
